import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { KINDS, type KindName } from "../../sdk/schema";
import { parseFieldValidation } from "../admission";
import { APPLY_PATCH_TYPE, applyOptionsOf, patchParameters, writeManager } from "../http/apply-patch";
import { acceptMediaTypes, JSON_TYPE, mediaTypeOf } from "../http/content-types";
import { addWarnings } from "../http/warnings";
import { DELETE_PARAMETERS, readDeleteOptions } from "../resources/deletion";
import { parseDryRun } from "../resources/dry-run";
import { parseFieldSelector } from "../resources/field-selector";
import { listBody } from "../resources/list-body";
import {
  checkReadVersion,
  GET_PARAMETERS,
  LIST_PARAMETERS,
  parseGetOptions,
  parseListOptions,
} from "../resources/list-options";
import { ResourceOperations } from "../resources/operations";
import { PATCH_TYPES, type PatchType } from "../resources/patch";
import { parseLabelSelector } from "../resources/selector";
import {
  negotiateTable,
  parseIncludeObject,
  type TableOptions,
  tableContentType,
  tableOf,
} from "../resources/table";
import type { ObjectStore } from "../storage";
import { onlyParameters, PATCH_PARAMETERS, type Query, single, WRITE_PARAMETERS } from "./query";
import { serveWatch, type Watches } from "./watch";

export interface ResourceRoutesOptions {
  kind: KindName;
  store: ObjectStore;
  /** The app's watch support (event history, open watches). */
  watches: Watches;
  /** The largest object a write may store, in bytes of JSON. */
  maxObjectBytes: number;
}

interface ItemRequest {
  Params: { name: string };
  Querystring: Query;
}

/**
 * The seven operations of one kind at `/apis/<group>/<version>/<plural>[/<name>]`. Bodies leave through
 * the redaction hook; errors through the Status error handler.
 */
export const resourceRoutes: FastifyPluginAsync<ResourceRoutesOptions> = async (
  fastify,
  { kind, store, watches, maxObjectBytes },
) => {
  const operations = new ResourceOperations(kind, store, maxObjectBytes);
  const { group, version, plural } = KINDS[kind];
  const collection = `/apis/${group}/${version}/${plural}`;
  const item = `${collection}/:name`;
  const writeParameters = onlyParameters(...WRITE_PARAMETERS);
  const jsonBody = { onRequest: acceptMediaTypes([JSON_TYPE], false), preValidation: writeParameters };
  // An apply patch (server-side apply) has parameters of its own: see http/apply-patch.ts.
  const patchBody = {
    onRequest: acceptMediaTypes([...PATCH_TYPES, APPLY_PATCH_TYPE], true),
    preValidation: patchParameters(...PATCH_PARAMETERS),
  };
  const listParameters = { preValidation: onlyParameters(...LIST_PARAMETERS) };
  const getParameters = { preValidation: onlyParameters(...GET_PARAMETERS) };
  // A DELETE may carry DeleteOptions as JSON, and all of them but preconditions as query parameters.
  const deleteBody = (...parameters: string[]) => ({
    onRequest: [acceptMediaTypes([JSON_TYPE], false), emptyBodyIsNoBody],
    preValidation: onlyParameters(...parameters),
  });

  // A list, or with watch=true a watch; either as a Table when the Accept header asks for one.
  fastify.get<{ Querystring: Query }>(collection, listParameters, async (request, reply) => {
    const options = parseListOptions(request.query);
    const table = tableOptions(request.headers.accept, request.query);
    if (options.watch) return serveWatch(reply, watches, kind, options, table);
    const list = operations.list({
      selector: options.labels,
      fields: options.fields,
      limit: options.limit,
      continue: options.continue,
      resourceVersion: checkReadVersion(kind, store, watches.hub.history, options),
    });
    // Serialized here from each item's cached text (list-body.ts), as fastify would serialize the list.
    if (table === undefined) return reply.type("application/json; charset=utf-8").send(listBody(list));
    return reply
      .header("content-type", tableContentType(table.version))
      .send(tableOf(kind, list.items, table, list.metadata));
  });

  // 201: the object exists when the answer leaves (the write is committed synchronously) and the body
  // is the stored object; 202 would promise work still pending.
  fastify.post<{ Querystring: Query }>(collection, jsonBody, async (request, reply) => {
    const { object, warnings } = operations.create(
      request.body,
      fieldValidation(request.query),
      writeManager(request),
      dryRun(request.query),
    );
    addWarnings(reply, warnings);
    return reply.code(201).send(object);
  });

  const collectionDelete = deleteBody("labelSelector", "fieldSelector", ...DELETE_PARAMETERS);
  fastify.delete<{ Querystring: Query }>(collection, collectionDelete, async (request) => {
    const options = readDeleteOptions(request.body, request.query);
    return operations.deleteCollection(
      parseLabelSelector(single(request.query, "labelSelector")),
      options,
      parseFieldSelector(single(request.query, "fieldSelector")),
    );
  });

  fastify.get<ItemRequest>(item, getParameters, async (request, reply) => {
    const { name } = request.params;
    const table = tableOptions(request.headers.accept, request.query);
    const read = parseGetOptions(request.query);
    // An Exact read at an older version is served when this object has not changed since (else 410).
    checkReadVersion(kind, store, watches.hub.history, read, name);
    const object = operations.get(name);
    if (table === undefined) return object;
    const { resourceVersion } = object.metadata;
    return reply
      .header("content-type", tableContentType(table.version))
      .send(tableOf(kind, [object], table, { resourceVersion }));
  });

  fastify.put<ItemRequest>(item, jsonBody, async (request, reply) => {
    const { object, warnings } = operations.replace(
      request.params.name,
      request.body,
      fieldValidation(request.query),
      writeManager(request),
      dryRun(request.query),
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
      dryRun(request.query),
    );
    addWarnings(reply, warnings);
    return object;
  });

  fastify.delete<ItemRequest>(item, deleteBody(...DELETE_PARAMETERS), async (request, reply) => {
    const outcome = operations.delete(request.params.name, readDeleteOptions(request.body, request.query));
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

function dryRun(query: Query): boolean {
  return parseDryRun(query.dryRun);
}

/** The Table the Accept header asks for, with its `includeObject`; undefined for plain JSON. */
function tableOptions(accept: string | undefined, query: Query): TableOptions | undefined {
  const includeObject = parseIncludeObject(single(query, "includeObject"));
  const version = negotiateTable(accept);
  return version === undefined ? undefined : { version, includeObject };
}
