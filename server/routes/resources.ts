import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { KINDS, type KindName } from "../../sdk/schema";
import { parseFieldValidation } from "../admission";
import { APPLY_PATCH_TYPE, applyOptionsOf, patchParameters, writeManager } from "../http/apply-patch";
import { acceptMediaTypes, JSON_TYPE, mediaTypeOf } from "../http/content-types";
import { addWarnings } from "../http/warnings";
import { readDeleteOptions } from "../resources/deletion";
import { ResourceOperations } from "../resources/operations";
import { parseLimit } from "../resources/paging";
import { PATCH_TYPES, type PatchType } from "../resources/patch";
import { parseLabelSelector } from "../resources/selector";
import type { ObjectStore } from "../storage";
import { onlyParameters, type Query, single } from "./query";

export interface ResourceRoutesOptions {
  kind: KindName;
  store: ObjectStore;
}

interface ItemRequest {
  Params: { name: string };
  Querystring: Query;
}

/**
 * The seven operations of one kind at `/apis/<group>/<version>/<plural>[/<name>]`. Bodies leave through
 * the redaction hook; errors through the Status error handler.
 */
export const resourceRoutes: FastifyPluginAsync<ResourceRoutesOptions> = async (fastify, { kind, store }) => {
  const operations = new ResourceOperations(kind, store);
  const { group, version, plural } = KINDS[kind];
  const collection = `/apis/${group}/${version}/${plural}`;
  const item = `${collection}/:name`;
  const writeParameters = onlyParameters("fieldValidation", "fieldManager");
  const jsonBody = { onRequest: acceptMediaTypes([JSON_TYPE], false), preValidation: writeParameters };
  // An apply patch (server-side apply) has parameters of its own: see http/apply-patch.ts.
  const patchBody = {
    onRequest: acceptMediaTypes([...PATCH_TYPES, APPLY_PATCH_TYPE], true),
    preValidation: patchParameters("fieldValidation", "fieldManager", "force"),
  };
  const listParameters = { preValidation: onlyParameters("labelSelector", "limit", "continue") };
  // A DELETE may carry DeleteOptions as JSON; its query parameters stay refused (Kubernetes does not read
  // preconditions from the query, and the other DeleteOptions fields are not supported yet).
  const deleteBody = (...parameters: string[]) => ({
    onRequest: [acceptMediaTypes([JSON_TYPE], false), emptyBodyIsNoBody],
    preValidation: onlyParameters(...parameters),
  });

  fastify.get<{ Querystring: Query }>(collection, listParameters, async (request) =>
    operations.list({
      selector: parseLabelSelector(single(request.query, "labelSelector")),
      limit: parseLimit(single(request.query, "limit")),
      continue: single(request.query, "continue"),
    }),
  );

  // 201: the object exists when the answer leaves (the write is committed synchronously) and the body
  // is the stored object; 202 would promise work still pending.
  fastify.post<{ Querystring: Query }>(collection, jsonBody, async (request, reply) => {
    const { object, warnings } = operations.create(
      request.body,
      fieldValidation(request.query),
      writeManager(request),
    );
    addWarnings(reply, warnings);
    return reply.code(201).send(object);
  });

  fastify.delete<{ Querystring: Query }>(collection, deleteBody("labelSelector"), async (request) => {
    const options = readDeleteOptions(request.body);
    return operations.deleteCollection(parseLabelSelector(single(request.query, "labelSelector")), options);
  });

  fastify.get<ItemRequest>(item, async (request) => operations.get(request.params.name));

  fastify.put<ItemRequest>(item, jsonBody, async (request, reply) => {
    const { object, warnings } = operations.replace(
      request.params.name,
      request.body,
      fieldValidation(request.query),
      writeManager(request),
    );
    addWarnings(reply, warnings);
    return object;
  });

  fastify.patch<ItemRequest>(item, patchBody, async (request, reply) => {
    if (mediaTypeOf(request) === APPLY_PATCH_TYPE) {
      const options = applyOptionsOf(request, fieldValidation(request.query));
      const { object, warnings, created } = operations.apply(request.params.name, request.body, options);
      addWarnings(reply, warnings);
      return reply.code(created ? 201 : 200).send(object);
    }
    const type = mediaTypeOf(request) as PatchType;
    const { object, warnings } = operations.patch(
      request.params.name,
      type,
      request.body,
      fieldValidation(request.query),
      writeManager(request),
    );
    addWarnings(reply, warnings);
    return object;
  });

  fastify.delete<ItemRequest>(item, deleteBody(), async (request, reply) => {
    const outcome = operations.delete(request.params.name, readDeleteOptions(request.body));
    return reply.code(outcome.code).send(outcome.status ?? outcome.object);
  });
};

/**
 * Kubernetes reads an empty DELETE body as no DeleteOptions whatever its Content-Type says, and some
 * clients send `Content-Type: application/json` on every request; the JSON parser would refuse the
 * empty body (400), so the type of a request without a body is dropped before parsing.
 */
async function emptyBodyIsNoBody(request: FastifyRequest): Promise<void> {
  const { "content-length": length, "transfer-encoding": encoding } = request.headers;
  if (encoding === undefined && (length === undefined || length === "0")) {
    delete request.raw.headers["content-type"];
  }
}

function fieldValidation(query: Query) {
  return parseFieldValidation(single(query, "fieldValidation"));
}
