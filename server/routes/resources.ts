import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { KINDS, type KindName } from "../../sdk/schema";
import { APPLY_PATCH_TYPE } from "../http/apply-patch";
import { acceptMediaTypes, JSON_TYPE, mediaTypeOf } from "../http/content-types";
import {
  applyOptions,
  deleteOptions,
  getOptions,
  listOptions,
  parseParameter,
  queryFor,
  queryOf,
  type RawQuery,
  readQuery,
  writeOptions,
} from "../http/query";
import { tableContentType, tableOptions } from "../http/table-negotiation";
import { addWarnings } from "../http/warnings";
import type { ApplyOptions } from "../resources/apply";
import { listBody } from "../resources/list-body";
import { checkReadVersion } from "../resources/list-options";
import { type Patch, ResourceOperations, type WriteOptions, type Written } from "../resources/operations";
import { PATCH_TYPES, type PatchType } from "../resources/patch";
import { tableOf } from "../resources/table";
import type { ObjectStore } from "../storage";
import { serveWatch, type Watches } from "./watch";

export interface ResourceRoutesOptions {
  kind: KindName;
  store: ObjectStore;
  /** The app's watch support (event history, open watches). */
  watches: Watches;
  /** The largest object a write may store, in bytes of JSON. */
  maxObjectBytes: number;
  /** Whether the controller drains Proxies (see `AppOptions`). */
  drainProxies?: boolean | undefined;
}

interface ItemRequest {
  Params: { name: string };
}

/** The writes of one item path: the object's, or its status subresource's. */
interface ItemWrites {
  replace(name: string, body: unknown, options: WriteOptions): Written;
  patch(name: string, patch: Patch, options: WriteOptions): Written;
  /** `created` only where an apply may create (the object, not its status). */
  apply(name: string, config: unknown, options: ApplyOptions): Written & { created?: boolean };
}

/**
 * The seven operations of one kind at `/apis/<group>/<version>/<plural>[/<name>]`, and the three of its
 * status subresource at `…/<name>/status`. Each route reads its
 * query with the table of query parameters (http/query) before anything else looks at it; bodies leave
 * through the redaction hook, errors through the Status error handler.
 */
export const resourceRoutes: FastifyPluginAsync<ResourceRoutesOptions> = async (
  fastify,
  { kind, store, watches, maxObjectBytes, drainProxies },
) => {
  const operations = new ResourceOperations(kind, store, maxObjectBytes, drainProxies);
  const { group, version, plural } = KINDS[kind];
  const collection = `/apis/${group}/${version}/${plural}`;
  const item = `${collection}/:name`;
  const status = `${item}/status`;
  const readScope = { kind, store, history: watches.hub.history };
  const jsonBody = (operation: "create" | "replace") => ({
    onRequest: acceptMediaTypes([JSON_TYPE], false),
    preValidation: readQuery(operation),
  });
  const patchBody = {
    onRequest: acceptMediaTypes([...PATCH_TYPES, APPLY_PATCH_TYPE], true),
    preValidation: readQuery((request) => (mediaTypeOf(request) === APPLY_PATCH_TYPE ? "apply" : "patch")),
  };
  // A DELETE may carry DeleteOptions as JSON, and all of them but preconditions as query parameters.
  const deleteBody = (operation: "delete" | "deletecollection") => ({
    onRequest: [acceptMediaTypes([JSON_TYPE], false), emptyBodyIsNoBody],
    preValidation: readQuery(operation),
  });
  // Which of the two a GET of the collection is depends on one parameter, read here first.
  const listOrWatch = readQuery((request) =>
    parseParameter("watch", (request.query as RawQuery).watch) === true ? "watch" : "list",
  );

  // A list, or with watch=true a watch; either as a Table when the Accept header asks for one.
  fastify.get(collection, { preValidation: listOrWatch }, async (request, reply) => {
    const query = queryFor(request, "list", "watch");
    const options = listOptions(query);
    const table = tableOptions(request.headers.accept, query.includeObject);
    if (options.watch) return serveWatch(reply, watches, kind, options, table);
    const list = operations.list({
      selector: options.labels,
      fields: options.fields,
      limit: options.limit,
      continue: options.continue,
      resourceVersion: checkReadVersion(readScope, options),
    });
    // Serialized here from each item's cached text (list-body.ts), as fastify would serialize the list.
    if (table === undefined) return reply.type("application/json; charset=utf-8").send(listBody(list));
    return reply
      .header("content-type", tableContentType(table.version))
      .send(tableOf(kind, list.items, table, list.metadata));
  });

  // 201: the object exists when the answer leaves (the write is committed synchronously) and the body
  // is the stored object; 202 would promise work still pending.
  fastify.post(collection, jsonBody("create"), async (request, reply) => {
    const query = queryFor(request, "create");
    const { object, warnings } = operations.create(
      request.body,
      writeOptions(query, request.headers["user-agent"]),
    );
    addWarnings(reply, warnings);
    return reply.code(201).send(object);
  });

  fastify.delete(collection, deleteBody("deletecollection"), async (request) => {
    const query = queryFor(request, "deletecollection");
    return operations.deleteCollection({
      ...deleteOptions(query, request.body),
      labels: query.labelSelector,
      fields: query.fieldSelector,
    });
  });

  // The object, and its status subresource: the same object, read the same way (a Table when asked).
  const getItem = async (request: FastifyRequest<ItemRequest>, reply: FastifyReply) => {
    const { name } = request.params;
    const query = queryFor(request, "get");
    const table = tableOptions(request.headers.accept, query.includeObject);
    // An Exact read at an older version is served when this object has not changed since (else 410).
    checkReadVersion(readScope, { ...getOptions(query), name });
    const object = operations.get(name);
    if (table === undefined) return object;
    const { resourceVersion } = object.metadata;
    return reply
      .header("content-type", tableContentType(table.version))
      .send(tableOf(kind, [object], table, { resourceVersion }));
  };
  fastify.get<ItemRequest>(item, { preValidation: readQuery("get") }, getItem);

  /** PUT and PATCH (merge, JSON, apply) at `path`, writing through `writes`: the object's or its status's. */
  const writeRoutes = (path: string, writes: ItemWrites) => {
    fastify.put<ItemRequest>(path, jsonBody("replace"), async (request, reply) => {
      const query = queryFor(request, "replace");
      const options = writeOptions(query, request.headers["user-agent"]);
      const { object, warnings } = writes.replace(request.params.name, request.body, options);
      addWarnings(reply, warnings);
      return object;
    });

    fastify.patch<ItemRequest>(path, patchBody, async (request, reply) => {
      const { name } = request.params;
      const userAgent = request.headers["user-agent"];
      const read = queryOf(request);
      if (read.operation === "apply") {
        const options = applyOptions(read.query, userAgent);
        const { object, warnings, created } = writes.apply(name, request.body, options);
        addWarnings(reply, warnings);
        return reply.code(created ? 201 : 200).send(object);
      }
      const type = mediaTypeOf(request) as PatchType;
      const { object, warnings } = writes.patch(
        name,
        { type, document: request.body },
        writeOptions(queryFor(request, "patch"), userAgent),
      );
      addWarnings(reply, warnings);
      return object;
    });
  };

  writeRoutes(item, {
    replace: (name, body, options) => operations.replace(name, body, options),
    patch: (name, patch, options) => operations.patch(name, patch, options),
    apply: (name, config, options) => operations.apply(name, config, options),
  });

  // The status subresource, as kube-apiserver serves it for a CRD with `subresources: {status: {}}`: get,
  // replace and patch (merge, JSON, apply; never a create) with the main resource's query parameters; a
  // write stores only the status (ResourceOperations.replaceStatus).
  fastify.get<ItemRequest>(status, { preValidation: readQuery("get") }, getItem);
  writeRoutes(status, {
    replace: (name, body, options) => operations.replaceStatus(name, body, options),
    patch: (name, patch, options) => operations.patchStatus(name, patch, options),
    apply: (name, config, options) => operations.applyStatus(name, config, options),
  });

  fastify.delete<ItemRequest>(item, deleteBody("delete"), async (request, reply) => {
    const options = deleteOptions(queryFor(request, "delete"), request.body);
    const outcome = operations.delete(request.params.name, options);
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
