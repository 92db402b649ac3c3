import type { FastifyInstance, FastifyReply } from "fastify";
import { ApiError } from "../../../sdk/errors";
import { apiError } from "../../../sdk/errors/server-errors";
import type { KindName } from "../../../sdk/schema";
import { errorFields } from "../../http/request-log";
import type { ListOptions } from "../../resources/list-options";
import type { TableOptions } from "../../resources/table";
import { WatchHub, type WatchOutput, type WatchSink } from "../../resources/watch";
import type { ObjectStore } from "../../storage";
import { DEFAULT_WATCH_HISTORY, DEFAULT_WATCH_RETENTION_MS, EventHistory } from "../../storage/history";
import { cutConnection } from "./cut";
import { EventLines, errorLine } from "./lines";
import { FlushScheduler, WatchStream } from "./stream";

export interface WatchSettings {
  /** How often a watch that allows bookmarks gets one. */
  bookmarkIntervalMs: number;
  /**
   * A watch whose client has more than this many bytes, or events, waiting to be sent has fallen behind:
   * it is ended after what it was sent, and the client resumes from its last resourceVersion.
   */
  maxBufferedBytes: number;
  maxBufferedEvents: number;
  /**
   * How long a watch that fell behind has to take what it was sent before its connection is cut; and how
   * long a client may take nothing while its watch has something waiting (initial events included) before
   * its connection is cut, whether or not new events arrive.
   */
  slowClientGraceMs: number;
  /**
   * Under a stream of events, how long lines may wait so that each write to a watch carries several:
   * FLUSH_MS_PER_WATCH for each open watch, up to this.
   */
  maxFlushIntervalMs: number;
  /** Open watches past which a new one is refused with 429 and Retry-After. */
  maxWatches: number;
  /** The bound of a watch without `timeoutSeconds`, in ms. */
  defaultTimeoutMs: () => number;
}

/** How often, within one slow-client grace, a watch is checked for a client that takes nothing. */
const STALL_CHECKS_PER_GRACE = 8;

/**
 * Kubernetes' API server ends a watch without a timeout after its minimum request timeout (30 min) times
 * [1, 2). Its watch cache gives each watcher a small buffer and closes one that cannot keep up; these bounds
 * are in the same spirit, sized for this server's objects (up to the object size limit each).
 */
/** A round of writes costs about 10 µs per watch: one every 0.1 ms per watch keeps it near a tenth of the time. */
const FLUSH_MS_PER_WATCH = 0.1;

export const DEFAULT_WATCH_SETTINGS: WatchSettings = {
  bookmarkIntervalMs: 60_000,
  maxBufferedBytes: 16 * 1024 * 1024,
  maxBufferedEvents: 1_000,
  slowClientGraceMs: 5_000,
  maxFlushIntervalMs: 100,
  maxWatches: 4_096,
  defaultTimeoutMs: () => Math.round(1_800_000 * (1 + Math.random())),
};

/**
 * A watch as Kubernetes serves it: status 200 at once, then one JSON object per line,
 * `{"type":"ADDED|MODIFIED|DELETED|BOOKMARK","object":{…}}` (chunked, `Content-Type: application/json`),
 * objects redacted as every response is, or each a one-row `Table` when the Accept header asks for tables
 * (`kubectl get -w`). It ends after `timeoutSeconds` (with a last bookmark when bookmarks are allowed),
 * when the server closes, or when the client falls behind; a client that goes away frees it at once.
 * A resourceVersion the history no longer reaches starts a watch whose only event is an ERROR carrying the
 * 410 Expired Status, as kube-apiserver answers once a request is parsed (clients list again on it).
 */
export function serveWatch(
  reply: FastifyReply,
  watches: Watches,
  kind: KindName,
  options: ListOptions,
  table: TableOptions | undefined,
): FastifyReply {
  const { hub, settings, lines, scheduler, streams } = watches;
  // The server's own controller's watches are not the clients --max-watches bounds.
  const { fromController } = reply.request;
  if (!fromController && hub.size >= settings.maxWatches) {
    throw apiError(
      "TooManyRequests",
      `too many open watches (${settings.maxWatches}, --max-watches); retry shortly`,
      { retryAfterSeconds: 1 },
    );
  }
  const timers: NodeJS.Timeout[] = [];
  let handle: ReturnType<WatchHub["open"]> | undefined;
  const release = () => {
    handle?.close();
    streams.delete(stream);
    for (const timer of timers) clearTimeout(timer);
  };
  const encode = (event: WatchOutput) => lines.encode(kind, event, table);
  const stream: WatchStream = new WatchStream(
    encode,
    scheduler,
    () => reply.raw.flushHeaders(),
    release,
    () => reply.raw.writableLength,
  );
  // The server's own controller's watches are not counted either: they read in this process.
  if (!fromController) streams.add(stream);
  /** Ends the stream after its queue; a client that still has not read it after `grace` is cut off. */
  const endWithin = (grace: number) => {
    release();
    const cut = setTimeout(() => cutConnection(reply.raw.socket), grace);
    reply.raw.once("close", () => clearTimeout(cut));
    stream.endAfterQueue();
  };
  // When the client last took something (or had nothing waiting for it).
  let sentBefore = stream.sentBytes;
  let progressAt = Date.now();
  let behind = false;
  /**
   * Logged as the watch ends, before the cut: a client that reads again in time gets whole events, then the
   * end, and resumes from the last. One past the bounds may still be reading: it gets the whole grace. One
   * that stalled has had a grace already, taking nothing: a quarter of one more, so it is cut within 1.5.
   */
  const fallBehind = (why: "bound" | "stalled") => {
    behind = true;
    reply.log.warn(
      {
        watch: {
          url: reply.request.url,
          remoteAddress: reply.request.ip,
          userAgent: reply.request.headers["user-agent"],
          why,
          queuedEvents: stream.queuedEvents,
          queuedBytes: stream.queuedBytes,
          initialEventsLeft: stream.initialLeft,
        },
        behindMs: Date.now() - progressAt,
      },
      "watch closed: the client fell behind",
    );
    // What it did not start to send stays unsent: the client lists (or watches) again, on a new connection:
    // this one closes once the client took what it was sent.
    stream.dropBacklog();
    const { socket } = reply.raw;
    reply.raw.once("finish", () => socket?.end());
    endWithin(why === "stalled" ? settings.slowClientGraceMs / 4 : settings.slowClientGraceMs);
  };
  const sink: WatchSink = {
    send: (event) => {
      if (behind) return;
      const line = encode(event);
      if (
        stream.queuedEvents + 1 > settings.maxBufferedEvents ||
        stream.queuedBytes + line.length > settings.maxBufferedBytes
      ) {
        fallBehind("bound");
      } else {
        stream.enqueue(line);
      }
    },
    sendBacklog: (events) => stream.backlog(events),
    // A client that does not read would hold the server's close: it gets the grace a slow one gets.
    end: () => endWithin(settings.slowClientGraceMs),
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
        own: fromController,
      },
      sink,
    );
  } catch (error) {
    release();
    stream.destroy();
    if (!(error instanceof ApiError && error.reason === "Expired")) throw error;
    return watchReply(reply).send(errorLine(error.status));
  }
  const { watcher } = handle;
  // A client that takes nothing for a grace while its watch has something waiting (its initial events, a
  // line in Node's buffers) has fallen behind, as one past the bounds has: no new event needs to come.
  // Looked at eight times a grace, so a stalled watch ends within 1.125 graces of its last progress.
  timers.push(
    setInterval(
      () => {
        if (behind) return;
        const sent = stream.sentBytes;
        if (sent !== sentBefore || !stream.waiting) {
          sentBefore = sent;
          progressAt = Date.now();
        } else if (Date.now() - progressAt >= settings.slowClientGraceMs) {
          fallBehind("stalled");
        }
      },
      Math.max(1, settings.slowClientGraceMs / STALL_CHECKS_PER_GRACE),
    ),
  );
  const timeoutMs =
    options.timeoutSeconds === undefined ? settings.defaultTimeoutMs() : options.timeoutSeconds * 1000;
  timers.push(
    setTimeout(() => {
      hub.later(() => {
        if (options.allowWatchBookmarks) watcher.bookmark();
        sink.end();
      });
    }, timeoutMs),
  );
  if (options.allowWatchBookmarks) {
    timers.push(setInterval(() => hub.later(() => watcher.bookmark()), settings.bookmarkIntervalMs));
  }
  return watchReply(reply).send(stream);
}

function watchReply(reply: FastifyReply): FastifyReply {
  return reply.code(200).type("application/json").header("Cache-Control", "no-cache, private");
}

const HUBS = new WeakMap<ObjectStore, Set<WatchHub>>();

/**
 * What the open watches on `store` hold for their clients (`queuedBytes`, `queuedEvents` of each stream,
 * initial events included once encoded) and how many initial events they have left to send: the server's
 * own account of its watch backlog (tests check it stays bounded, and is 0 once the clients left).
 */
export function watchBacklog(store: ObjectStore): {
  streams: number;
  bytes: number;
  events: number;
  initialEvents: number;
} {
  const backlog = { streams: 0, bytes: 0, events: 0, initialEvents: 0 };
  for (const watches of WATCHES.get(store) ?? []) {
    for (const stream of watches.streams) {
      backlog.streams++;
      backlog.bytes += stream.queuedBytes;
      backlog.events += stream.queuedEvents;
      backlog.initialEvents += stream.initialLeft;
    }
  }
  return backlog;
}

const WATCHES = new WeakMap<ObjectStore, Set<Watches>>();

/** How many watches are open on `store` (tests check that a client going away frees its watch). */
export function openWatchCount(store: ObjectStore): number {
  let count = 0;
  for (const hub of HUBS.get(store) ?? []) count += hub.size;
  return count;
}

export interface WatchOptions extends WatchSettings {
  /** How many store events a watch can resume from; older resourceVersions are 410 Expired. */
  historySize: number;
  /** How long a store event is kept for watches to resume from (default 75 s, as kube-apiserver). */
  historyRetentionMs: number;
}

/** The watch support of one app: the event history of its store, its open watches, how lines leave. */
export interface Watches {
  hub: WatchHub;
  settings: WatchSettings;
  lines: EventLines;
  scheduler: FlushScheduler;
  /** The bodies of the clients' open watches, for their account (watchBacklog). */
  streams: Set<WatchStream>;
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
  const history = new EventHistory(
    store,
    options.historySize ?? DEFAULT_WATCH_HISTORY,
    (error) => fastify.log.error({ error: errorFields(error) }, "a watch failed"),
    options.historyRetentionMs ?? DEFAULT_WATCH_RETENTION_MS,
  );
  const hub = new WatchHub(store, history, (error) =>
    fastify.log.error({ error: errorFields(error) }, "a watch failed; it was ended"),
  );
  const hubs = HUBS.get(store) ?? new Set();
  HUBS.set(store, hubs.add(hub));
  fastify.addHook("preClose", async () => hub.closeAll());
  const { historySize: _size, historyRetentionMs: _retention, ...given } = options;
  const settings = { ...DEFAULT_WATCH_SETTINGS, ...given };
  const interval = () => Math.min(settings.maxFlushIntervalMs, hub.size * FLUSH_MS_PER_WATCH);
  const watches: Watches = {
    hub,
    settings,
    lines: new EventLines(),
    scheduler: new FlushScheduler(interval),
    streams: new Set(),
  };
  const all = WATCHES.get(store) ?? new Set();
  WATCHES.set(store, all.add(watches));
  fastify.addHook("onClose", async () => {
    history.close();
    hubs.delete(hub);
    all.delete(watches);
  });
  return watches;
}
