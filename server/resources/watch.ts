import type { ApiObject } from "../../sdk/client/types";
import { SpaceExceededError } from "../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../sdk/schema";
import type { ObjectStore } from "../storage";
import type { EventHistory, HistoryEvent } from "../storage/history";
import { type FieldSelector, matchesFields, selectedName } from "./field-selector";
import { expired } from "./list-options";
import { type LabelSelector, matchesSelector } from "./selector";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";

/** What a watch delivers: an object as stored (the HTTP layer redacts and encodes it). */
export interface WatchOutput {
  type: WatchEventType;
  object: ApiObject;
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
  /** The server's own controller watches: not one of the clients `--max-watches` bounds. */
  own?: boolean;
}

export interface WatchSink {
  send(event: WatchOutput): void;
  /**
   * The events a watch starts with (the current objects, or the history it resumes from), in order before
   * any other: they go out at the client's pace and are not counted as the client falling behind.
   */
  sendBacklog(events: readonly WatchOutput[]): void;
  /** The server ends the watch (graceful close); the sink ends its stream. */
  end(): void;
}

/**
 * One watch: the events of one kind that pass its selectors, in resourceVersion order, from the start its
 * request names. Kubernetes' rules for selectors: an object that starts to match is ADDED, one that stops
 * matching is DELETED (with its new content), a deletion is DELETED only if the object matched before it.
 * While held, what it would send is kept, in order, until `release`.
 */
export class Watcher {
  /** The version up to which the watcher has seen every event (delivered or filtered out). */
  private cursor: number;
  private held: WatchOutput[] | undefined = [];

  constructor(
    readonly request: WatchRequest,
    private readonly sink: WatchSink,
    start: number,
  ) {
    this.cursor = start;
  }

  /** The version up to which the watcher has seen every event. */
  get reached(): number {
    return this.cursor;
  }

  /** A BOOKMARK at the version the watcher has reached: the client may resume from there. */
  bookmark(annotations?: Record<string, string>): void {
    const { apiVersion } = KINDS[this.request.kind];
    this.send({
      type: "BOOKMARK",
      object: {
        apiVersion,
        kind: this.request.kind,
        metadata: {
          resourceVersion: String(this.cursor),
          ...(annotations && { annotations }),
        } as ApiObject["metadata"],
      } as ApiObject,
    });
  }

  /** Sends what an event means to this watch, if anything. */
  consider(event: HistoryEvent): void {
    if (event.resourceVersion <= this.cursor) return;
    this.cursor = event.resourceVersion;
    if (event.kind !== this.request.kind) return;
    const object = event.object;
    const nowMatches = event.type !== "DELETED" && passes(this.request, object, object.metadata.labels);
    const matchedBefore = event.previous.existed && passes(this.request, object, event.previous.labels);
    if (nowMatches && !matchedBefore) this.send({ type: "ADDED", object });
    else if (nowMatches) this.send({ type: "MODIFIED", object });
    else if (matchedBefore) this.send({ type: "DELETED", object });
  }

  send(output: WatchOutput): void {
    if (this.held) this.held.push(output);
    else this.sink.send(output);
  }

  /** Sends what was held, then everything as it comes. */
  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    this.sink.sendBacklog(held);
  }

  end(): void {
    this.sink.end();
  }
}

/** A step of the hub's outbox: an event's dispatch (its version), or a new watch's first events (its watcher). */
interface OutboxStep {
  run: () => void;
  version?: number;
  watcher?: Watcher;
}

/** Whether the object, with these labels, is one the watch selects (its name is the same before and after). */
function passes(
  request: WatchRequest,
  object: ApiObject,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return matchesFields(request.fields, object) && matchesSelector(request.labels, labels);
}

/**
 * The open watches of one server over one store's event history, fed as Kubernetes' watch cache feeds them:
 * one subscription to the history, each event handed to the watches of its kind once the store has made it
 * durable (no watch shows a write a crash could lose), in one ordered outbox that also carries each new
 * watch's first events, bookmarks and ends, so nothing overtakes what was committed before it.
 *
 * `open` starts a watch: without a resourceVersion (or with "0") the current objects come first as ADDED
 * events, then every change; with a version, the changes after it, replayed from the history (410 Expired
 * when the history no longer reaches back to it). `closeAll` ends every watch (the server's graceful close).
 */
export class WatchHub {
  private readonly byKind = new Map<KindName, Set<Watcher>>();
  /** Steps waiting for the store's next durable point; `flushing` those the current wait covers. */
  private outbox: OutboxStep[] = [];
  private flushing: OutboxStep[] = [];
  private waiting = false;

  /** Follows `history` until it closes. */
  constructor(
    private readonly store: ObjectStore,
    readonly history: EventHistory,
    private readonly onError: (error: unknown, watcher: Watcher) => void = () => {},
  ) {
    history.subscribe((event) =>
      this.queue({ run: () => this.dispatch(event), version: event.resourceVersion }),
    );
    store.subscribeResets((version) => this.rollBack(version));
  }

  /** Open watches of clients; the server's own controller's are not counted. */
  get size(): number {
    let size = 0;
    for (const watchers of this.byKind.values()) {
      for (const watcher of watchers) if (!watcher.request.own) size++;
    }
    return size;
  }

  /** Everything happens in one tick: the objects listed and the events after them leave no gap, no overlap. */
  open(request: WatchRequest, sink: WatchSink): { watcher: Watcher; close: () => void } {
    const version = request.resourceVersion ?? "";
    const fromNow = version === "" || version === "0";
    const initial = request.sendInitialEvents ?? fromNow;
    let watcher: Watcher;
    let replay: readonly HistoryEvent[];
    if (initial || fromNow) {
      // The state now; sendInitialEvents with a version asks for a state not older than it: this one is.
      const listed = Number(this.store.resourceVersion());
      watcher = new Watcher(request, sink, listed);
      if (initial) {
        for (const object of this.current(request)) watcher.send({ type: "ADDED", object });
        if (request.sendInitialEvents && request.allowWatchBookmarks)
          watcher.bookmark({ [INITIAL_EVENTS_END]: "true" });
      }
      replay = this.history.since(request.kind, listed) ?? [];
    } else {
      const start = Number(version);
      const events = this.history.since(request.kind, start);
      if (events === undefined) throw expired(version, this.history.oldest());
      watcher = new Watcher(request, sink, start);
      replay = events;
    }
    // Held until the outbox reaches this point: what is there before it is covered by the replay.
    for (const event of replay) watcher.consider(event);
    const watchers = this.byKind.get(request.kind) ?? new Set();
    this.byKind.set(request.kind, watchers.add(watcher));
    this.queue({ run: () => watcher.release(), watcher });
    return { watcher, close: () => watchers.delete(watcher) };
  }

  /** Runs `step` once what the store holds now is durable, after every event committed before it. */
  later(step: () => void): void {
    this.queue({ run: step });
  }

  private queue(step: OutboxStep): void {
    this.outbox.push(step);
    if (this.waiting) return;
    this.waiting = true;
    this.flush();
  }

  closeAll(): void {
    for (const watchers of this.byKind.values()) {
      for (const watcher of [...watchers]) {
        watchers.delete(watcher);
        watcher.end();
      }
    }
  }

  private flush(): void {
    this.flushing = this.outbox;
    this.outbox = [];
    this.store.durable().then(
      () => {
        const steps = this.flushing;
        this.flushing = [];
        for (const step of steps) step.run();
        if (this.outbox.length > 0) this.flush();
        else this.waiting = false;
      },
      (error) => {
        // Writes undone for lack of space: `rollBack` took their steps out; the rest wait again.
        if (error instanceof SpaceExceededError) {
          this.outbox = [...this.flushing, ...this.outbox];
          this.flush();
          return;
        }
        // A store that cannot make its writes durable has failed: no watch may show them.
        this.flushing = [];
        this.outbox = [];
        this.closeAll();
      },
    );
  }

  /**
   * The store undid its writes after `version`: their events are never sent, and a watch that saw them
   * (one opened meanwhile lists what the store held) ends without sending what it holds; its client
   * watches again from the version it has.
   */
  private rollBack(version: number): void {
    const stale = new Set<Watcher>();
    for (const watchers of this.byKind.values()) {
      for (const watcher of watchers) {
        if (watcher.reached <= version) continue;
        stale.add(watcher);
        watchers.delete(watcher);
      }
    }
    const kept = (step: OutboxStep) =>
      (step.version === undefined || step.version <= version) &&
      (step.watcher === undefined || !stale.has(step.watcher));
    this.flushing = this.flushing.filter(kept);
    this.outbox = this.outbox.filter(kept);
    for (const watcher of stale) watcher.end();
  }

  private dispatch(event: HistoryEvent): void {
    for (const watcher of this.byKind.get(event.kind) ?? []) {
      try {
        watcher.consider(event);
      } catch (error) {
        this.byKind.get(event.kind)?.delete(watcher);
        this.onError(error, watcher);
        watcher.end();
      }
    }
  }

  /**
   * The objects a watch starts with: the stored objects themselves, never copies (a stored object is never
   * changed once stored), so every watch that starts now shares them, and the one line each is encoded into
   * (routes/watch/lines.ts). Copies made each watch encode its own lines of the same objects.
   */
  private current(request: WatchRequest): ApiObject[] {
    const name = selectedName(request.fields);
    const where = (object: ApiObject) =>
      (name === undefined || object.metadata.name === name) &&
      passes(request, object, object.metadata.labels);
    if (name === undefined) return this.store.pageView(request.kind, { where }).items as ApiObject[];
    const named = this.store.get(request.kind, name);
    return named !== undefined && where(named) ? [named] : [];
  }
}
