// Kubernetes Events on the local server, in both groups kube-apiserver serves them in: core `v1`
// (`/api/v1/namespaces/<ns>/events`, what `kubectl events` and `kubectl describe` read) and
// `events.k8s.io/v1` (what client-go's events recorder, and this controller's, write). Create, get, list and
// watch (with field selectors), replace, patch and delete; one store behind both (server/events).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { successStatus } from "../../sdk/errors/reasons";
import { alreadyExists, invalid, notFound, type Resource } from "../../sdk/errors/server-errors";
import { isRecord } from "../../sdk/shared/records";
import { fromEventsV1, matchesFields, toEventsV1 } from "../events/convert";
import type { EventStore, StoredEvent } from "../events/store";
import { jsonBodyParser } from "../http/content-types";
import { applyPatchDocument, JSON_PATCH_TYPE, MERGE_PATCH_TYPE } from "../resources/patch";

/** client-go's events recorder patches a series with a strategic merge patch: for an Event, a merge patch. */
const STRATEGIC_MERGE_PATCH_TYPE = "application/strategic-merge-patch+json";
const MAX_EVENT_BYTES = 1024 * 1024;
/** kube-apiserver's limit on an events.k8s.io Event's note. */
const MAX_NOTE_BYTES = 1024;

interface Group {
  prefix: string;
  resource: Resource;
  listKind: string;
  apiVersion: string;
  view(event: StoredEvent): Record<string, unknown>;
  stored(body: Record<string, unknown>): Record<string, unknown>;
}

export const EVENT_GROUPS: readonly Group[] = [
  {
    prefix: "/api/v1",
    resource: { kind: "Event", group: "", plural: "events" },
    listKind: "EventList",
    apiVersion: "v1",
    view: (event) => event,
    stored: (body) => ({ ...body, apiVersion: "v1", kind: "Event" }),
  },
  {
    prefix: "/apis/events.k8s.io/v1",
    resource: { kind: "Event", group: "events.k8s.io", plural: "events" },
    listKind: "EventList",
    apiVersion: "events.k8s.io/v1",
    view: toEventsV1,
    stored: fromEventsV1,
  },
];

type Params = { namespace?: string; name?: string };
type Query = { watch?: string; fieldSelector?: string; resourceVersion?: string };

export const eventRoutes: FastifyPluginAsync<{ events: EventStore }> = async (fastify, { events }) => {
  const parse = jsonBodyParser(fastify);
  fastify.addContentTypeParser(STRATEGIC_MERGE_PATCH_TYPE, { parseAs: "string" }, (request, body, done) =>
    parse(request, body as string, done),
  );
  for (const group of EVENT_GROUPS) {
    const collection = `${group.prefix}/namespaces/:namespace/events`;
    const list = async (
      request: FastifyRequest<{ Params: Params; Querystring: Query }>,
      reply: FastifyReply,
    ) => {
      const { namespace } = request.params;
      const { fieldSelector } = request.query;
      const selected = (event: StoredEvent) => matchesFields(event, fieldSelector);
      if (request.query.watch === "true" || request.query.watch === "1")
        return watch(events, group, request, reply, namespace, selected);
      return {
        kind: group.listKind,
        apiVersion: group.apiVersion,
        metadata: { resourceVersion: events.resourceVersion },
        items: events.list(namespace).filter(selected).map(group.view),
      };
    };
    fastify.get(`${group.prefix}/events`, list);
    fastify.get(collection, list);

    fastify.post<{ Params: Params }>(collection, async (request, reply) => {
      const namespace = request.params.namespace ?? "default";
      const body = eventBody(group, request.body, namespace);
      const created = events.create(body as never);
      if (created === undefined) throw alreadyExists(group.resource, String(body.metadata.name));
      return reply.code(201).send(group.view(created));
    });

    const item = `${collection}/:name`;
    const existing = (params: Params) => {
      const found = events.get(params.namespace ?? "", params.name ?? "");
      if (found === undefined) throw notFound(group.resource, params.name ?? "");
      return found;
    };
    fastify.get<{ Params: Params }>(item, async (request) => group.view(existing(request.params)));
    fastify.put<{ Params: Params }>(item, async (request) => {
      const before = existing(request.params);
      const body = eventBody(group, request.body, before.metadata.namespace, before.metadata.name);
      checkUpdate(group, before, body);
      return group.view(
        events.replace({ ...body, metadata: { ...before.metadata, ...body.metadata } } as never) ?? before,
      );
    });
    fastify.patch<{ Params: Params }>(item, async (request) => {
      const before = existing(request.params);
      const type = String(request.headers["content-type"] ?? "")
        .split(";")[0]
        ?.trim();
      const patched = applyPatchDocument(
        type === JSON_PATCH_TYPE ? JSON_PATCH_TYPE : MERGE_PATCH_TYPE,
        group.view(before),
        request.body,
        MAX_EVENT_BYTES,
      );
      const body = eventBody(group, patched, before.metadata.namespace, before.metadata.name);
      checkUpdate(group, before, body);
      return group.view(
        events.replace({ ...body, metadata: { ...before.metadata, ...body.metadata } } as never) ?? before,
      );
    });
    fastify.delete<{ Params: Params }>(item, async (request) => {
      const gone = events.delete(request.params.namespace ?? "", request.params.name ?? "");
      if (gone === undefined) throw notFound(group.resource, request.params.name ?? "");
      return successStatus({ name: gone.metadata.name, kind: "events" });
    });
  }
};

/**
 * What an update of an events.k8s.io Event may not change (kube-apiserver's ValidateEventUpdate: only the
 * series and the deprecated counters move; core v1 writes may change anything).
 */
const IMMUTABLE_V1 = [
  "involvedObject",
  "reason",
  "message",
  "type",
  "eventTime",
  "action",
  "related",
  "reportingComponent",
  "reportingInstance",
] as const;

/** The events.k8s.io name of a stored field, for a cause's path. */
const V1_NAMES: Readonly<Record<string, string>> = {
  involvedObject: "regarding",
  message: "note",
  reportingComponent: "reportingController",
};

function immutableChanges(group: Group, before: StoredEvent, after: Record<string, unknown>): string[] {
  if (group.apiVersion === "v1") return [];
  return IMMUTABLE_V1.filter((key) => JSON.stringify(after[key]) !== JSON.stringify(before[key])).map(
    (key) => V1_NAMES[key] ?? key,
  );
}

/** Refuses an update that changes an immutable field (422, one cause per field). */
function checkUpdate(group: Group, before: StoredEvent, after: Record<string, unknown>): void {
  const changed = immutableChanges(group, before, after);
  if (changed.length === 0) return;
  throw invalid(
    group.resource,
    before.metadata.name,
    changed.map((field) => ({ reason: "FieldValueInvalid", field, message: `${field}: field is immutable` })),
  );
}

/** The request's Event in the stored shape, checked as kube-apiserver checks the fields a reader relies on. */
function eventBody(
  group: Group,
  body: unknown,
  namespace: string,
  name?: string,
): Record<string, unknown> & { metadata: Record<string, unknown> } {
  const source = isRecord(body) ? body : {};
  const metadata = isRecord(source.metadata) ? source.metadata : {};
  const stored = group.stored(source);
  const eventName =
    name ?? (typeof metadata.name === "string" && metadata.name !== "" ? metadata.name : undefined);
  const generated =
    eventName ??
    (typeof metadata.generateName === "string"
      ? `${metadata.generateName}${Math.random().toString(36).slice(2, 7)}`
      : undefined);
  const causes: { field: string; message: string }[] = [];
  if (generated === undefined)
    causes.push({ field: "metadata.name", message: "name or generateName is required" });
  if (metadata.namespace !== undefined && metadata.namespace !== namespace)
    causes.push({ field: "metadata.namespace", message: "does not match the namespace of the request" });
  if (typeof stored.reason !== "string" || stored.reason === "")
    causes.push({ field: "reason", message: "Required value" });
  if (stored.type !== undefined && stored.type !== "Normal" && stored.type !== "Warning")
    causes.push({ field: "type", message: 'Unsupported value: supported values: "Normal", "Warning"' });
  const note = group.apiVersion === "v1" ? "message" : "note";
  if (
    typeof stored.message === "string" &&
    group.apiVersion !== "v1" &&
    Buffer.byteLength(stored.message) > MAX_NOTE_BYTES
  )
    causes.push({ field: note, message: `may not be more than ${MAX_NOTE_BYTES} bytes` });
  if (causes.length > 0)
    throw invalid(
      group.resource,
      eventName ?? "",
      causes.map(({ field, message }) => ({
        reason: "FieldValueInvalid",
        field,
        message: `${field}: ${message}`,
      })),
    );
  return { ...stored, metadata: { ...metadata, name: generated, namespace } };
}

/** A watch of the Events: those after `resourceVersion` (all of them without one), then every change. */
function watch(
  events: EventStore,
  group: Group,
  request: FastifyRequest<{ Querystring: Query }>,
  reply: FastifyReply,
  namespace: string | undefined,
  selected: (event: StoredEvent) => boolean,
) {
  // The headers at once, as kube-apiserver sends them: a client's watch is open before any event.
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache, private" });
  response.flushHeaders();
  const since = Number(request.query.resourceVersion ?? 0) || 0;
  const send = (type: string, event: StoredEvent) => {
    if (namespace !== undefined && event.metadata.namespace !== namespace) return;
    if (!selected(event)) return;
    response.write(`${JSON.stringify({ type, object: group.view(event) })}\n`);
  };
  for (const event of events.list(namespace))
    if (Number(event.metadata.resourceVersion) > since) send("ADDED", event);
  const unwatch = events.watch((change) => send(change.type, change.object));
  const end = () => {
    unwatch();
    forget();
    response.end();
  };
  const forget = events.onClose(end);
  request.raw.on("close", end);
}
