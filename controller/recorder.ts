// Kubernetes Events about the objects the controller acts on, recorded as client-go's events recorder
// (k8s.io/client-go/tools/events) records them: `events.k8s.io/v1`, the controller as reportingController,
// one series per reason and object (the first occurrence creates the Event, later ones within
// SERIES_WINDOW_MS count in its `series`, patched at most every SERIES_FLUSH_MS), and a token bucket per object
// (client-go's spam filter: a burst of 25, then one write per 5 minutes) so that a failing loop writes a
// bounded number of objects. Never in the way of a sync: writes are fire-and-forget, one at a time in the order
// recorded (client-go's broadcaster: one writer behind a queue of 1,000, dropping past it), so a burst of mints
// does not send its Events beside the mints' own writes; a failed one is dropped.
import { randomBytes } from "node:crypto";
import type { EventClient, EventV1 } from "../sdk/client/events";
import type { ApiObject } from "../sdk/client/types";
import type { ControllerLogger } from "./logger";

/** Where a cluster-scoped object's Events go, as client-go's recorder puts them. */
export const EVENTS_NAMESPACE = "default";
/** The reporting controller of every Event this controller records. */
export const REPORTING_CONTROLLER = "compute.example.dev/exampledev-controller";

export const RECORDER_DEFAULTS = {
  /** Writes an object may make at once (client-go: 25). */
  burst: 25,
  /** Then one more per this long (client-go: 1 per 5 minutes). */
  refillMs: 5 * 60_000,
  /** An occurrence this long after the last one starts a new Event (client-go: 6 minutes). */
  seriesWindowMs: 6 * 60_000,
  /** A series' count and last time are written at most this often. */
  seriesFlushMs: 10_000,
  /** Writes waiting for the one before them; an occurrence past it is dropped (client-go: 1,000). */
  maxQueued: 1_000,
};

export type EventType = "Normal" | "Warning";

export interface RecorderOptions extends Partial<typeof RECORDER_DEFAULTS> {
  events: EventClient;
  /** This replica (its pod name or host): the Events' reportingInstance. */
  instance: string;
  log: ControllerLogger;
  /** Counts each Event written, series patched and occurrence dropped (metrics). */
  onOutcome?: (outcome: "created" | "patched" | "dropped", reason: string) => void;
}

interface Series {
  name: string;
  count: number;
  last: number;
  /** The create, while it is out. */
  created: Promise<boolean>;
  flushTimer?: NodeJS.Timeout;
  flushedCount: number;
}

export class EventRecorder {
  private readonly series = new Map<string, Series>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly settings: typeof RECORDER_DEFAULTS;
  /** The last write queued, and how many are queued or under way. */
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;

  constructor(private readonly options: RecorderOptions) {
    this.settings = { ...RECORDER_DEFAULTS, ...withoutUndefined(options) };
  }

  /** Records that `reason` happened to `object` (`action`: what the controller did, `note`: for people). */
  record(object: ApiObject, type: EventType, reason: string, action: string, note: string): void {
    const now = Date.now();
    const objectKey = object.metadata.uid ?? `${object.kind}/${object.metadata.name}`;
    const key = `${objectKey}/${reason}`;
    const existing = this.series.get(key);
    const bounded = note.length > 1024 ? `${note.slice(0, 1021)}...` : note;
    if (existing && now - existing.last < this.settings.seriesWindowMs) {
      existing.count += 1;
      existing.last = now;
      this.scheduleFlush(objectKey, existing, reason);
      return;
    }
    if (!this.admits(objectKey, now)) {
      this.options.onOutcome?.("dropped", reason);
      return;
    }
    const name = `${object.metadata.name}.${randomBytes(8).toString("hex")}`;
    const event: EventV1 = {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name, namespace: EVENTS_NAMESPACE },
      eventTime: microTime(now),
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: this.options.instance,
      action,
      reason,
      regarding: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name: object.metadata.name,
        ...(object.metadata.uid !== undefined && { uid: object.metadata.uid }),
        ...(object.metadata.resourceVersion !== undefined && {
          resourceVersion: object.metadata.resourceVersion,
        }),
      },
      note: bounded,
      type,
    };
    const created = this.write(() => this.options.events.create(event)).then(
      () => {
        this.options.onOutcome?.("created", reason);
        return true;
      },
      (error) => {
        this.options.log.warn(
          { reason, object: object.metadata.name, error: String(error) },
          "event not recorded",
        );
        this.series.delete(key);
        return false;
      },
    );
    if (existing?.flushTimer) clearTimeout(existing.flushTimer);
    this.series.set(key, { name, count: 1, last: now, created, flushedCount: 1 });
    this.prune(now);
  }

  /** Waits for the writes queued and under way (tests, and a stopping controller). */
  async flush(): Promise<void> {
    await Promise.all([...this.series.values()].map((series) => series.created));
    await this.tail;
  }

  /** Runs `request` after the writes queued before it. */
  private write<T>(request: () => Promise<T>): Promise<T> {
    this.queued += 1;
    const done = this.tail.then(request).finally(() => {
      this.queued -= 1;
    });
    this.tail = done.catch(() => undefined);
    return done;
  }

  stop(): void {
    for (const series of this.series.values()) if (series.flushTimer) clearTimeout(series.flushTimer);
    this.series.clear();
  }

  private scheduleFlush(objectKey: string, series: Series, reason: string): void {
    if (series.flushTimer) return;
    series.flushTimer = setTimeout(() => {
      series.flushTimer = undefined;
      if (series.count === series.flushedCount) return;
      if (!this.admits(objectKey, Date.now())) {
        this.options.onOutcome?.("dropped", reason);
        return;
      }
      const count = series.count;
      void series.created.then(async (ok) => {
        if (!ok) return;
        try {
          await this.write(() =>
            this.options.events.patch(EVENTS_NAMESPACE, series.name, {
              // Only the series: kube-apiserver keeps an events.k8s.io Event's note, reason and regarding
              // immutable, as client-go's recorder leaves them (the first occurrence's note stays).
              series: { count, lastObservedTime: microTime(series.last) },
            }),
          );
          series.flushedCount = count;
          this.options.onOutcome?.("patched", reason);
        } catch (error) {
          this.options.log.warn(
            { reason, event: series.name, error: String(error) },
            "event series not updated",
          );
        }
      });
    }, this.settings.seriesFlushMs);
    series.flushTimer.unref();
  }

  /** Whether a write for the object may be queued: room in the queue, and a token of its bucket. */
  private admits(objectKey: string, now: number): boolean {
    return this.queued < this.settings.maxQueued && this.take(objectKey, now);
  }

  /** A token of the object's bucket, if one is left. */
  private take(objectKey: string, now: number): boolean {
    const { burst, refillMs } = this.settings;
    const bucket = this.buckets.get(objectKey) ?? { tokens: burst, at: now };
    const refilled = Math.min(burst, bucket.tokens + Math.floor((now - bucket.at) / refillMs));
    const at = refilled > bucket.tokens ? now : bucket.at;
    if (refilled < 1) {
      this.buckets.set(objectKey, { tokens: refilled, at });
      return false;
    }
    this.buckets.set(objectKey, { tokens: refilled - 1, at });
    return true;
  }

  /** Forgets series past their window and full buckets, so memory follows the objects that are busy. */
  private prune(now: number): void {
    if (this.series.size < 1_000 && this.buckets.size < 1_000) return;
    for (const [key, series] of this.series)
      if (now - series.last >= this.settings.seriesWindowMs && !series.flushTimer) this.series.delete(key);
    const { burst, refillMs } = this.settings;
    for (const [key, bucket] of this.buckets)
      if (bucket.tokens + (now - bucket.at) / refillMs >= burst) this.buckets.delete(key);
  }
}

/** Kubernetes' MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function withoutUndefined(options: Partial<typeof RECORDER_DEFAULTS>): Partial<typeof RECORDER_DEFAULTS> {
  const { burst, refillMs, seriesWindowMs, seriesFlushMs, maxQueued } = options;
  return Object.fromEntries(
    Object.entries({ burst, refillMs, seriesWindowMs, seriesFlushMs, maxQueued }).filter(
      ([, value]) => value !== undefined,
    ),
  );
}
