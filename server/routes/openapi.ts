import { createHash } from "node:crypto";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { KINDS, type KindInfo, type KindName } from "../../sdk/schema";
import {
  allSchemas,
  type GroupVersion,
  groupVersionSchemas,
  groupVersions,
  kindComponent,
  listComponent,
  type OpenApiVersion,
  refPrefix,
  type SchemaObject,
} from "../../sdk/schema/openapi";
import { APPLY_PATCH_TYPE } from "../http/apply-patch";
import { type Operation, type ParameterName, parametersOf, QUERY_PARAMETERS } from "../http/query";
import { JSON_PATCH_TYPE, MERGE_PATCH_TYPE } from "../resources/patch";
import { encodeSwaggerDocument, PROTOBUF_V2_CONTENT_TYPE, PROTOBUF_V2_TYPE } from "./openapi-protobuf";

/**
 * The OpenAPI documents kubectl reads: `/openapi/v3` lists one document per group version
 * (`/openapi/v3/apis/<group>/<version>?hash=…`, OpenAPI 3.0), and `/openapi/v2` is the whole API in
 * Swagger 2.0 (JSON, or the protocol buffer client-go asks for). The schemas are generated from the zod schema (sdk/schema/openapi.ts); the paths here say
 * which operations each kind has, with the query parameters the table of query parameters gives each
 * (http/query/table.ts) and the `x-kubernetes-group-version-kind` and `x-kubernetes-action` extensions
 * kubectl looks for (`kubectl explain` finds a resource's kind through
 * them, and `kubectl apply` sends `fieldValidation` because the PATCH operation lists it).
 */

type Action = "list" | "post" | "deletecollection" | "get" | "put" | "patch" | "delete";

interface OperationSpec {
  method: "get" | "post" | "put" | "patch" | "delete";
  action: Action;
  verb: string;
  summary: (info: KindInfo) => string;
  /** The operations of the query-parameter table this one serves: it lists the parameters of each. */
  operations: readonly Operation[];
  /** Request body media types, when the operation takes one. */
  consumes?: readonly string[];
  /** The schema of the answer: the kind, its list, or a Status. */
  answers: "object" | "list" | "status";
  codes: readonly string[];
}

const COLLECTION: readonly OperationSpec[] = [
  {
    method: "get",
    action: "list",
    verb: "list",
    summary: (info) => `list or page through ${info.plural}, or watch them (watch=true)`,
    operations: ["list", "watch"],
    answers: "list",
    codes: ["200"],
  },
  {
    method: "post",
    action: "post",
    verb: "create",
    summary: (info) => `create a ${info.kind}`,
    operations: ["create"],
    consumes: ["application/json"],
    answers: "object",
    codes: ["201"],
  },
  {
    method: "delete",
    action: "deletecollection",
    verb: "deletecollection",
    summary: (info) => `delete the ${info.plural} the selectors match (every one without them)`,
    operations: ["deletecollection"],
    answers: "list",
    codes: ["200"],
  },
];

const ITEM: readonly OperationSpec[] = [
  {
    method: "get",
    action: "get",
    verb: "read",
    summary: (info) => `read the specified ${info.kind}`,
    operations: ["get"],
    answers: "object",
    codes: ["200"],
  },
  {
    method: "put",
    action: "put",
    verb: "replace",
    summary: (info) => `replace the specified ${info.kind}; metadata.resourceVersion is required`,
    operations: ["replace"],
    consumes: ["application/json"],
    answers: "object",
    codes: ["200"],
  },
  {
    method: "patch",
    action: "patch",
    verb: "patch",
    summary: (info) =>
      `partially update the specified ${info.kind}: JSON patch, merge patch, or server-side apply (which creates it when it does not exist)`,
    operations: ["patch", "apply"],
    consumes: [JSON_PATCH_TYPE, MERGE_PATCH_TYPE, APPLY_PATCH_TYPE],
    answers: "object",
    codes: ["200", "201"],
  },
  {
    method: "delete",
    action: "delete",
    verb: "delete",
    summary: (info) =>
      `delete the specified ${info.kind} (200 with the object, marked with its deletionTimestamp, while finalizers or a Proxy's grace period hold it; 202 instead for the deprecated orphanDependents=false)`,
    operations: ["delete"],
    consumes: ["application/json"],
    answers: "status",
    codes: ["200", "202"],
  },
];

/**
 * The status subresource (`…/{name}/status`), as kube-apiserver publishes it for a CRD: read, replace and
 * patch, with the query parameters of the object's own; a write stores only the status and never creates.
 */
const STATUS: readonly OperationSpec[] = [
  {
    method: "get",
    action: "get",
    verb: "read",
    summary: (info) => `read status of the specified ${info.kind}`,
    operations: ["get"],
    answers: "object",
    codes: ["200"],
  },
  {
    method: "put",
    action: "put",
    verb: "replace",
    summary: (info) =>
      `replace status of the specified ${info.kind}: only status is stored; metadata.resourceVersion is required`,
    operations: ["replace"],
    consumes: ["application/json"],
    answers: "object",
    codes: ["200"],
  },
  {
    method: "patch",
    action: "patch",
    verb: "patch",
    summary: (info) =>
      `partially update status of the specified ${info.kind}: JSON patch, merge patch, or server-side apply; only status is stored`,
    operations: ["patch", "apply"],
    consumes: [JSON_PATCH_TYPE, MERGE_PATCH_TYPE, APPLY_PATCH_TYPE],
    answers: "object",
    codes: ["200"],
  },
];

/** The query parameters of an OpenAPI operation: those of each table operation it serves, once each. */
function queryParametersOf(operations: readonly Operation[]): ParameterName[] {
  return [...new Set(operations.flatMap(parametersOf))];
}

function operationId(verb: string, info: KindInfo, suffix = ""): string {
  const group = info.group
    .split(".")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
  const version = info.version.charAt(0).toUpperCase() + info.version.slice(1);
  return `${verb}${group}${version}${info.kind}${suffix}`;
}

function tag(info: KindInfo): string {
  return `${info.group.split(".").join("")}_${info.version}`;
}

class PathBuilder {
  constructor(private readonly openapi: OpenApiVersion) {}

  private ref(name: string): SchemaObject {
    return { $ref: `${refPrefix(this.openapi)}${name}` };
  }

  private parameter(name: ParameterName): SchemaObject {
    const { description, type } = QUERY_PARAMETERS[name];
    return this.openapi === 3
      ? { name, in: "query", description, schema: { type } }
      : { name, in: "query", description, type, uniqueItems: true };
  }

  private answer(kind: KindName, answers: OperationSpec["answers"]): SchemaObject {
    if (answers === "object") return this.ref(kindComponent(kind));
    if (answers === "list") return this.ref(listComponent(kind));
    return { description: "A Status (or the object, while its deletion is in progress)", type: "object" };
  }

  /** `subresource`: "Status" for an operation of the status subresource (its operationId ends with it). */
  operation(kind: KindName, spec: OperationSpec, subresource = ""): SchemaObject {
    const info = KINDS[kind];
    const schema = this.answer(kind, spec.answers);
    const responses: Record<string, SchemaObject> = {};
    for (const code of spec.codes) {
      const description =
        code === "201"
          ? "Created"
          : code === "202"
            ? "Accepted: deletion in progress (orphanDependents=false)"
            : "OK";
      responses[code] =
        this.openapi === 3
          ? { description, content: { "application/json": { schema } } }
          : { description, schema };
    }
    responses["401"] = { description: "Unauthorized" };
    const parameters = queryParametersOf(spec.operations).map((name) => this.parameter(name));
    const body =
      spec.consumes === undefined
        ? undefined
        : spec.action === "patch"
          ? { description: "The patch, or the applied configuration", type: "object" }
          : spec.action === "delete"
            ? {
                description: "DeleteOptions (preconditions, propagationPolicy, gracePeriodSeconds, dryRun)",
                type: "object",
              }
            : this.ref(kindComponent(kind));
    const operation: SchemaObject = {
      tags: [tag(info)],
      description: spec.summary(info),
      operationId: operationId(spec.verb, info, subresource),
    };
    if (this.openapi === 3) {
      if (parameters.length > 0) operation.parameters = parameters;
      if (spec.consumes !== undefined && body !== undefined) {
        operation.requestBody = {
          content: Object.fromEntries(spec.consumes.map((type) => [type, { schema: body }])),
          required: spec.action !== "delete",
        };
      }
    } else {
      const bodyParameter =
        body === undefined
          ? []
          : [{ name: "body", in: "body", required: spec.action !== "delete", schema: body }];
      const all = [...bodyParameter, ...parameters];
      if (all.length > 0) operation.parameters = all;
      if (spec.consumes !== undefined) operation.consumes = [...spec.consumes];
      operation.produces = ["application/json"];
      operation.schemes = ["https", "http"];
    }
    operation.responses = responses;
    operation["x-kubernetes-action"] = spec.action;
    operation["x-kubernetes-group-version-kind"] = { group: info.group, kind, version: info.version };
    return operation;
  }

  paths(kinds: readonly KindInfo[]): Record<string, SchemaObject> {
    const paths: Record<string, SchemaObject> = {};
    for (const info of kinds) {
      const collection = `/apis/${info.group}/${info.version}/${info.plural}`;
      paths[collection] = Object.fromEntries(
        COLLECTION.map((spec) => [spec.method, this.operation(info.kind, spec)]),
      );
      const name =
        this.openapi === 3
          ? {
              name: "name",
              in: "path",
              description: `name of the ${info.kind}`,
              required: true,
              schema: { type: "string" },
            }
          : {
              name: "name",
              in: "path",
              description: `name of the ${info.kind}`,
              required: true,
              type: "string",
              uniqueItems: true,
            };
      paths[`${collection}/{name}`] = {
        ...Object.fromEntries(ITEM.map((spec) => [spec.method, this.operation(info.kind, spec)])),
        parameters: [name],
      };
      paths[`${collection}/{name}/status`] = {
        ...Object.fromEntries(STATUS.map((spec) => [spec.method, this.operation(info.kind, spec, "Status")])),
        parameters: [name],
      };
    }
    return paths;
  }
}

const INFO = { title: "exampledev local API server", version: "v0.1.0" };

/** The OpenAPI 3.0 document of one group version. */
export function openApiV3Document(groupVersion: GroupVersion): SchemaObject {
  return {
    openapi: "3.0.0",
    info: INFO,
    paths: new PathBuilder(3).paths(groupVersion.kinds),
    components: {
      schemas: groupVersionSchemas(groupVersion.group, groupVersion.version, 3),
      securitySchemes: {
        BearerToken: { type: "apiKey", description: "Bearer token", name: "authorization", in: "header" },
      },
    },
    security: [{ BearerToken: [] }],
  };
}

/** The Swagger 2.0 document of the whole API. */
export function openApiV2Document(): SchemaObject {
  return {
    swagger: "2.0",
    info: INFO,
    paths: Object.assign({}, ...groupVersions().map(({ kinds }) => new PathBuilder(2).paths(kinds))),
    definitions: allSchemas(2),
    securityDefinitions: {
      BearerToken: { type: "apiKey", description: "Bearer token", name: "authorization", in: "header" },
    },
    security: [{ BearerToken: [] }],
  };
}

/** A document served as fixed bytes, with the hash Kubernetes puts in its URL (SHA-512, upper-case hex). */
interface Served {
  body: string | Buffer;
  type: string;
  hash: string;
}

function serve(body: string | Buffer, type = "application/json"): Served {
  return { body, type, hash: createHash("sha512").update(body).digest("hex").toUpperCase() };
}

function send(request: FastifyRequest, reply: FastifyReply, served: Served) {
  const query = request.query as Record<string, unknown>;
  // A URL with the current hash names bytes that never change; without it, clients must revalidate.
  const immutable = query.hash === served.hash;
  reply
    .header("ETag", `"${served.hash}"`)
    .header("Cache-Control", immutable ? "public, immutable, max-age=31536000" : "no-cache, private")
    .header("Vary", "Accept");
  if (request.headers["if-none-match"] === `"${served.hash}"`) return reply.code(304).send();
  reply.header("Content-Type", served.type);
  return reply.send(served.body);
}

/** Whether the client takes the protocol buffer form (client-go asks for nothing else). */
function wantsProtobuf(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? "";
  const types = [PROTOBUF_V2_TYPE, PROTOBUF_V2_CONTENT_TYPE];
  return accept.split(",").some((range) => types.includes(range.split(";")[0]?.trim().toLowerCase() ?? ""));
}

export const openApiRoutes: FastifyPluginAsync = async (fastify) => {
  const documents = groupVersions().map((groupVersion) => ({
    path: `apis/${groupVersion.group}/${groupVersion.version}`,
    served: serve(JSON.stringify(openApiV3Document(groupVersion))),
  }));
  const swagger = openApiV2Document();
  const v2 = serve(JSON.stringify(swagger));
  const v2Protobuf = serve(encodeSwaggerDocument(swagger), PROTOBUF_V2_CONTENT_TYPE);

  fastify.get("/openapi/v3", async () => ({
    paths: Object.fromEntries(
      documents.map(({ path, served }) => [
        path,
        { serverRelativeURL: `/openapi/v3/${path}?hash=${served.hash}` },
      ]),
    ),
  }));
  for (const { path, served } of documents) {
    fastify.get(`/openapi/v3/${path}`, async (request, reply) => send(request, reply, served));
  }
  fastify.get("/openapi/v2", async (request, reply) =>
    send(request, reply, wantsProtobuf(request) ? v2Protobuf : v2),
  );
};
