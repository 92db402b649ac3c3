import { KINDS, type KindName } from "../../sdk/schema";
import type { ObjectStore, StoredObject } from "../storage";
import type { EventHistory, HistoryEvent } from "../storage/history";
import { type FieldSelector, matchesFields, selectedName } from "./field-selector";
import { expired } from "./list-options";
import { type LabelSelector, matchesSelector } from "./selector";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";

/** What a watch delivers: an object as stored (the HTTP layer redacts and encodes it). */
export interface WatchOutput {
  type: WatchEventType;
  object: StoredObject;
}

/** The annotation of the bookmark that ends the initial events of a `sendInitialEvents` watch. */
export const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

export interface WatchRequest {
  kind: KindName;
  labels: LabelSelector;
  fields: FieldSelector;
  /** As sent: undefined, "" or "0" start with the current objects (unless sendInitialEvents is false). */
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks: boolean;
}

export interface WatchSink {
  send(event: WatchOutput): void;
  /** The server ends the watch (graceful close); the sink ends its stream. */
  end(): void;
}

/**
 * One watch: the events of one kind that pass its selectors, in resourceVersion order, from the start its
 * request names. Kubernetes' rules for selectors: an object that starts to match is ADDED, one that stops
 * matching is DELETED (with its new content), a deletion is DELETED only if the object matched before it.
 */
export class Watcher {
  /** The version up to which the watcher has seen every event (delivered or filtered out). */
  private cursor: number;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly request: WatchRequest,
    private readonly sink: WatchSink,
    start: number,
  ) {
    this.cursor = start;
  }

  /** Starts following `history`; `replay` events are delivered first (they are after the start). */
  follow(history: EventHistory, replay: readonly HistoryEvent[]): void {
    for (const event of replay) this.consider(event);
    this.unsubscribe = history.subscribe((event) => this.consider(event));
  }

  /** A BOOKMARK at the version the watcher has reached: the client may resume from there. */
  bookmark(annotations?: Record<string, string>): void {
    const { apiVersion } = KINDS[this.request.kind];
    this.sink.send({
      type: "BOOKMARK",
      object: {
        apiVersion,
        kind: this.request.kind,
        metadata: {
          resourceVersion: String(this.cursor),
          ...(annotations && { annotations }),
        } as StoredObject["metadata"],
      } as StoredObject,
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Sends what an event means to this watch, if anything. */
  consider(event: HistoryEvent): void {
    if (event.resourceVersion <= this.cursor) return;
    this.cursor = event.resourceVersion;
    if (event.kind !== this.request.kind) return;
    const object = event.object;
    const nowMatches = event.type !== "DELETED" && passes(this.request, object, object.metadata.labels);
    const matchedBefore = event.previous.existed && passes(this.request, object, event.previous.labels);
    if (nowMatches && !matchedBefore) this.sink.send({ type: "ADDED", object });
    else if (nowMatches) this.sink.send({ type: "MODIFIED", object });
    else if (matchedBefore) this.sink.send({ type: "DELETED", object });
  }
}

/** Whether the object, with these labels, is one the watch selects (its name is the same before and after). */
function passes(
  request: WatchRequest,
  object: StoredObject,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return matchesFields(request.fields, object) && matchesSelector(request.labels, labels);
}

/**
 * The open watches of one server over one store's event history. `open` starts a watch: without a
 * resourceVersion (or with "0") the current objects come first as ADDED events, then every change; with a
 * version, the changes after it, replayed from the history (410 Expired when the history no longer reaches
 * back to it). `closeAll` ends every watch (the server's graceful close).
 */
export class WatchHub {
  private readonly open_ = new Set<{ watcher: Watcher; sink: WatchSink }>();

  constructor(
    private readonly store: ObjectStore,
    readonly history: EventHistory,
  ) {}

  get size(): number {
    return this.open_.size;
  }

  /** Resolves once what the store holds now is durable: no watch shows a write a crash could lose. */
  durable(): Promise<void> {
    return this.store.durable();
  }

  /** Everything happens in one tick: the objects listed and the events after them leave no gap, no overlap. */
  open(request: WatchRequest, sink: WatchSink): { watcher: Watcher; close: () => void } {
    const version = request.resourceVersion ?? "";
    const fromNow = version === "" || version === "0";
    const initial = request.sendInitialEvents ?? fromNow;
    let watcher: Watcher;
    if (initial || fromNow) {
      // The state now; sendInitialEvents with a version asks for a state not older than it: this one is.
      const listed = Number(this.store.resourceVersion());
      watcher = new Watcher(request, sink, listed);
      if (initial) {
        for (const object of this.current(request)) sink.send({ type: "ADDED", object });
        if (request.sendInitialEvents && request.allowWatchBookmarks)
          watcher.bookmark({ [INITIAL_EVENTS_END]: "true" });
      }
      watcher.follow(this.history, this.history.since(request.kind, listed) ?? []);
    } else {
      const start = Number(version);
      const replay = this.history.since(request.kind, start);
      if (replay === undefined) throw expired(version, this.history.oldest());
      watcher = new Watcher(request, sink, start);
      watcher.follow(this.history, replay);
    }
    const entry = { watcher, sink };
    this.open_.add(entry);
    return {
      watcher,
      close: () => {
        watcher.stop();
        this.open_.delete(entry);
      },
    };
  }

  closeAll(): void {
    for (const entry of [...this.open_]) {
      entry.watcher.stop();
      this.open_.delete(entry);
      entry.sink.end();
    }
  }

  private current(request: WatchRequest): StoredObject[] {
    const name = selectedName(request.fields);
    const candidates =
      name === undefined
        ? this.store.list(request.kind)
        : [this.store.get(request.kind, name)].filter((object) => object !== undefined);
    return candidates.filter((object) => passes(request, object, object.metadata.labels));
  }
}
