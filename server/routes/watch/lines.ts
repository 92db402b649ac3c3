import type { ApiObject } from "../../../sdk/client/types";
import type { Status } from "../../../sdk/errors";
import type { KindName } from "../../../sdk/schema";
import { redactObject } from "../../resources/redaction";
import { type TableOptions, tableOf } from "../../resources/table";
import type { WatchOutput } from "../../resources/watch";

type ObjectEventType = Exclude<WatchOutput["type"], "BOOKMARK">;

/**
 * The lines of watch events (`{"type":…,"object":…}\n`). An object's line is made once, redacted, and shared
 * by every watch that sends it with that type: stored objects are never mutated, so the line is keyed by the
 * object itself and goes when it goes. Bookmarks and Tables, which differ per watch, are made for each.
 */
export class EventLines {
  /**
   * Held weakly: a line lives while a watch still has it to send, and goes after (a stored object may stay
   * for months; its 1.5 MiB line need not stay with it once every watch sent it).
   */
  private readonly objects = new WeakMap<ApiObject, Partial<Record<ObjectEventType, WeakRef<Buffer>>>>();

  encode(kind: KindName, event: WatchOutput, table: TableOptions | undefined): Buffer {
    const { type, object } = event;
    if (type === "BOOKMARK") return lineOf({ type, object: bookmarkObject(kind, object, table) });
    const { resourceVersion } = object.metadata;
    if (table !== undefined)
      return lineOf({ type, object: tableOf(kind, [object], table, { resourceVersion }) });
    let lines = this.objects.get(object);
    if (lines === undefined) {
      lines = {};
      this.objects.set(object, lines);
    }
    let line = lines[type]?.deref();
    if (line === undefined) {
      line = lineOf({ type, object: redactObject(object) });
      lines[type] = new WeakRef(line);
    }
    return line;
  }
}

/** The one line of a watch that cannot start, as kube-apiserver sends it: `{"type":"ERROR","object":<Status>}`. */
export function errorLine(status: Status): Buffer {
  // failureStatus already leaves empty details out, as Go's omitempty does.
  return lineOf({ type: "ERROR", object: status });
}

function lineOf(event: { type: WatchOutput["type"] | "ERROR"; object: unknown }): Buffer {
  return Buffer.from(`${JSON.stringify(event)}\n`);
}

function bookmarkObject(kind: KindName, object: ApiObject, table: TableOptions | undefined): unknown {
  if (table === undefined) return object;
  const { resourceVersion } = object.metadata;
  return { ...tableOf(kind, [], table, { resourceVersion }), columnDefinitions: [] };
}
