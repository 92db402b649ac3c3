import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { KindName } from "../../sdk/schema";
import { errorFields } from "../http/request-log";
import type { ListOptions } from "../resources/list-options";
import { redactObject } from "../resources/redaction";
import { type TableOptions, tableOf } from "../resources/table";
import { WatchHub, type WatchOutput, type WatchSink } from "../resources/watch";
import type { ObjectStore } from "../storage";
import { DEFAULT_WATCH_HISTORY, EventHistory } from "../storage/history";

export interface WatchSettings {
  /** How often a watch that allows bookmarks gets one. */
  bookmarkIntervalMs: number;
  /** A watch whose client reads slower than this many bytes pile up is ended; the client resumes it. */
  maxBufferedBytes: number;
  /** The bound of a watch without `timeoutSeconds`, in ms. */
  defaultTimeoutMs: () => number;
}

/** Kubernetes' API server ends a watch without a timeout after its minimum request timeout (30 min) times [1, 2). */
export const DEFAULT_WATCH_SETTINGS: WatchSettings = {
  bookmarkIntervalMs: 60_000,
  maxBufferedBytes: 16 * 1024 * 1024,
  defaultTimeoutMs: () => Math.round(1_800_000 * (1 + Math.random())),
};

/**
 * A watch as Kubernetes serves it: status 200 at once, then one JSON object per line,
 * `{"type":"ADDED|MODIFIED|DELETED|BOOKMARK","object":{…}}` (chunked, `Content-Type: application/json`),
 * objects redacted as every response is, or each a one-row `Table` when the Accept header asks for tables
 * (`kubectl get -w`). It ends after `timeoutSeconds` (with a last bookmark when bookmarks are allowed),
 * when the server closes, or when the client reads too slowly; a client that goes away frees it at once.
 * A resourceVersion the history no longer reaches is refused before anything is sent (410 Expired).
 */
export function serveWatch(
  reply: FastifyReply,
  hub: WatchHub,
  kind: KindName,
  options: ListOptions,
  table: TableOptions | undefined,
  settings: WatchSettings,
): FastifyReply {
  const timers: NodeJS.Timeout[] = [];
  let handle: ReturnType<WatchHub["open"]> | undefined;
  let ended = false;
  const release = () => {
    ended = true;
    handle?.close();
    for (const timer of timers) clearTimeout(timer);
  };
  const stream = new WatchStream(() => reply.raw.flushHeaders(), release);

  // Lines wait for the store's commit of what they show (with group commit a write is visible before it
  // is durable, and no watch may show one a crash could lose): the lines encoded before a commit was asked
  // for go out once it is made, in order.
  const pending: string[] = [];
  let waiting = false;
  const flush = () => {
    if (waiting || pending.length === 0) return;
    waiting = true;
    const count = pending.length;
    hub.durable().then(
      () => {
        waiting = false;
        if (ended) return;
        for (const line of pending.splice(0, count)) stream.push(line);
        if (stream.readableLength > settings.maxBufferedBytes) finish();
        else flush();
      },
      () => finish(),
    );
  };
  /** Ends the stream after what was already sent (the last events, a final bookmark). */
  const finish = () => {
    if (ended) return;
    release();
    hub.durable().then(
      () => {
        for (const line of pending.splice(0)) stream.push(line);
        stream.push(null);
      },
      () => stream.push(null),
    );
  };
  const sink: WatchSink = {
    send: (event) => {
      if (ended) return;
      pending.push(`${JSON.stringify(encode(kind, event, table))}\n`);
      flush();
    },
    end: finish,
  };

  try {
    handle = hub.open(
      {
        kind,
        labels: options.labels,
        fields: options.fields,
        resourceVersion: options.resourceVersion,
        sendInitialEvents: options.sendInitialEvents,
        allowWatchBookmarks: options.allowWatchBookmarks,
      },
      sink,
    );
  } catch (error) {
    release();
    stream.destroy();
    throw error;
  }
  const { watcher } = handle;
  const timeoutMs =
    options.timeoutSeconds === undefined ? settings.defaultTimeoutMs() : options.timeoutSeconds * 1000;
  timers.push(
    setTimeout(() => {
      if (options.allowWatchBookmarks && !ended) watcher.bookmark();
      finish();
    }, timeoutMs),
  );
  if (options.allowWatchBookmarks) {
    timers.push(setInterval(() => watcher.bookmark(), settings.bookmarkIntervalMs));
  }
  return reply.code(200).type("application/json").header("Cache-Control", "no-cache, private").send(stream);
}

function encode(kind: KindName, event: WatchOutput, table: TableOptions | undefined): unknown {
  const { type, object } = event;
  if (type === "BOOKMARK") {
    if (table === undefined) return { type, object };
    const { resourceVersion } = object.metadata;
    return { type, object: { ...tableOf(kind, [], table, { resourceVersion }), columnDefinitions: [] } };
  }
  if (table === undefined) return { type, object: redactObject(object) };
  const { resourceVersion } = object.metadata;
  return { type, object: tableOf(kind, [object], table, { resourceVersion }) };
}

/**
 * The body of a watch. Fastify pipes it into the response; its first read means the headers are set, and
 * they are flushed then, so a client sees 200 before the first event. Destroying it (the client went
 * away, fastify destroys the body) releases the watch.
 */
class WatchStream extends Readable {
  private started = false;

  constructor(
    private readonly onStart: () => void,
    private readonly onDestroy: () => void,
  ) {
    super();
  }

  override _read(): void {
    if (this.started) return;
    this.started = true;
    this.onStart();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.onDestroy();
    callback(error);
  }
}

const HUBS = new WeakMap<ObjectStore, Set<WatchHub>>();

/** How many watches are open on `store` (tests check that a client going away frees its watch). */
export function openWatchCount(store: ObjectStore): number {
  let count = 0;
  for (const hub of HUBS.get(store) ?? []) count += hub.size;
  return count;
}

export interface WatchOptions extends WatchSettings {
  /** How many store events a watch can resume from; older resourceVersions are 410 Expired. */
  historySize: number;
}

/** The watch support of one app: the event history of its store and its open watches. */
export interface Watches {
  hub: WatchHub;
  settings: WatchSettings;
}

/**
 * Starts recording `store`'s events for watches and ties them to the app's life: a graceful close ends
 * every open watch first (fastify waits for open responses, and a watch would otherwise keep it waiting
 * for its timeout), then the history stops listening.
 */
export function openWatches(
  fastify: FastifyInstance,
  store: ObjectStore,
  options: Partial<WatchOptions> = {},
): Watches {
  const history = new EventHistory(store, options.historySize ?? DEFAULT_WATCH_HISTORY, (error) =>
    fastify.log.error({ error: errorFields(error) }, "a watch failed"),
  );
  const hub = new WatchHub(store, history);
  const hubs = HUBS.get(store) ?? new Set();
  HUBS.set(store, hubs.add(hub));
  fastify.addHook("preClose", async () => hub.closeAll());
  fastify.addHook("onClose", async () => {
    history.close();
    hubs.delete(hub);
  });
  const { historySize: _size, ...settings } = options;
  return { hub, settings: { ...DEFAULT_WATCH_SETTINGS, ...settings } };
}
