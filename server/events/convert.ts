// events.k8s.io/v1 as a view of the stored core v1 Event, field for field as kube-apiserver converts them
// (k8s.io/kubernetes pkg/apis/events/v1 conversion): regarding is involvedObject, note is message,
// reportingController is reportingComponent, the deprecated* fields are the core ones of the same meaning.
import type { StoredEvent } from "./store";

type Json = Record<string, unknown>;

const RENAMED: readonly (readonly [events: string, core: string])[] = [
  ["regarding", "involvedObject"],
  ["note", "message"],
  ["reportingController", "reportingComponent"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
];

const SAME = ["metadata", "eventTime", "series", "action", "reason", "related", "reportingInstance", "type"];

function copy(from: Json, pairs: readonly (readonly [string, string])[]): Json {
  const out: Json = {};
  for (const [to, key] of pairs) if (from[key] !== undefined) out[to] = from[key];
  return out;
}

/** The stored Event as `events.k8s.io/v1` serves it. */
export function toEventsV1(event: StoredEvent): Json {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    ...copy(
      event,
      SAME.map((key) => [key, key] as const),
    ),
    ...copy(
      event,
      RENAMED.map(([events, core]) => [events, core] as const),
    ),
  };
}

/** An `events.k8s.io/v1` body in the stored shape. */
export function fromEventsV1(body: Json): Json {
  return {
    apiVersion: "v1",
    kind: "Event",
    ...copy(
      body,
      SAME.map((key) => [key, key] as const),
    ),
    ...copy(
      body,
      RENAMED.map(([events, core]) => [core, events] as const),
    ),
    involvedObject: (body.regarding as Json | undefined) ?? {},
  };
}

/**
 * The value a core Event's field selector names: `involvedObject.kind`, `reason`, `type`, `source`
 * (the component), `reportingComponent`, `metadata.name`, ...; for events.k8s.io the same names are read
 * through the view (`regarding.name` is `involvedObject.name`).
 */
export function fieldOf(event: StoredEvent, path: string): string | undefined {
  const core = RENAMED.reduce(
    (name, [events, coreName]) =>
      name === events || name.startsWith(`${events}.`) ? coreName + name.slice(events.length) : name,
    path,
  );
  if (core === "source") return stringOf((event.source as Json | undefined)?.component);
  let value: unknown = event;
  for (const part of core.split(".")) value = (value as Json | undefined)?.[part];
  return stringOf(value);
}

function stringOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : String(value);
}

/** Whether the Event matches `a=b,c!=d` (empty values match an absent field, as Kubernetes' do). */
export function matchesFields(event: StoredEvent, selector: string | undefined): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const negated = term.includes("!=");
    const [key = "", value = ""] = term.split(negated ? "!=" : term.includes("==") ? "==" : "=");
    const actual = fieldOf(event, key.trim()) ?? "";
    return negated ? actual !== value.trim() : actual === value.trim();
  });
}
