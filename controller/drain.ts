// The Proxy drain: admission creates each Proxy with the finalizer `core.example.dev/drain`, the controller
// puts it back on a Proxy that lost it while not being deleted, and takes it off a deleted Proxy once the
// drain is over, so a Proxy terminates for that long on either server (the local one and kube-apiserver,
// where a custom resource has no grace period of its own). In the shape of the Service controller: events
// queue Proxy names, one worker syncs one name at a time, idempotently.
import { isDeepStrictEqual } from "node:util";
import { ConflictError, NotFoundError } from "../sdk/client";
import type { ApiObject } from "../sdk/client/types";
import { PROXY_DRAIN_FINALIZER, proxyReadiness } from "../sdk/schema";
import { timestamp } from "../sdk/shared/time";
import type { KindCache } from "./cluster";
import { nextConditions } from "./conditions";
import type { ControllerLogger } from "./logger";
import type { QueueObserver } from "./metrics";
import { type BackoffOptions, WorkQueue } from "./queue";
import type { EventRecorder } from "./recorder";
import { EVENT_REASONS } from "./service-events";

export interface ProxyDrainOptions {
  proxies: KindCache;
  /** How long a deleted Proxy drains before it goes, from when it was marked; 0 lets it go at once. */
  drainMs: number;
  log: ControllerLogger;
  backoff?: BackoffOptions;
  /** Records a drain's start and end as Events. */
  recorder?: EventRecorder;
  /** The work queue's metrics (metrics.ts). */
  queueObserver?: QueueObserver;
}

/** What one sync of a Proxy does: keep the finalizer on, take it off, or wait until the drain is over. */
export type DrainStep =
  | { action: "none" }
  | { action: "add" }
  | { action: "remove" }
  | { action: "wait"; delayMs: number };

/**
 * The step for a Proxy at `now`. `seenMarkedAt` is when this process first saw it marked (ms): the mark's
 * `deletionTimestamp` has whole seconds, rounded down, so the drain counts from the earlier of that
 * sighting and the end of the mark's second, which the mark cannot have come after. A drain never ends
 * before it has lasted `drainMs` since the mark; a controller that starts mid-drain waits out the rest.
 */
export function drainStep(
  proxy: Pick<ApiObject, "metadata">,
  drainMs: number,
  now: number,
  seenMarkedAt: number | undefined,
): DrainStep {
  const { deletionTimestamp, finalizers = [] } = proxy.metadata;
  const held = finalizers.includes(PROXY_DRAIN_FINALIZER);
  // Marked without the finalizer: created while nothing drained, or a user took it off to skip the drain.
  if (deletionTimestamp === undefined) return held ? { action: "none" } : { action: "add" };
  if (!held) return { action: "none" };
  const markedBy = Date.parse(deletionTimestamp) + 1000;
  const drainedAt = Math.min(markedBy, seenMarkedAt ?? markedBy) + drainMs;
  return now >= drainedAt ? { action: "remove" } : { action: "wait", delayMs: drainedAt - now };
}

/**
 * Made before the caches start (it listens to the Proxies' cache, which starts only with a listener), and
 * run once they are: `run(synced)`.
 */
export class ProxyDrain {
  private readonly queue: WorkQueue;
  /** When each marked Proxy (by uid) was first seen marked. */
  private readonly seenMarkedAt = new Map<string, number>();
  private worker: Promise<void> | undefined;
  private synced: Promise<void> | undefined;

  constructor(private readonly options: ProxyDrainOptions) {
    this.queue = new WorkQueue(options.backoff, options.queueObserver);
    const enqueue = (proxy: ApiObject) => {
      const { name, uid, deletionTimestamp } = proxy.metadata;
      if (uid !== undefined && deletionTimestamp !== undefined && !this.seenMarkedAt.has(uid))
        this.seenMarkedAt.set(uid, Date.now());
      this.queue.add(name);
    };
    options.proxies.addHandlers({
      add: enqueue,
      update: (_, proxy) => enqueue(proxy),
      delete: (proxy) => {
        if (proxy.metadata.uid !== undefined) this.seenMarkedAt.delete(proxy.metadata.uid);
      },
    });
  }

  /** Syncs queued Proxies once `synced` resolves (the caches hold their first lists), until `stop`. */
  run(synced: Promise<void>): void {
    this.synced = synced;
    this.worker ??= this.work(synced);
  }

  /** Resolves once no Proxy waits for a sync and none is syncing; drains still under way do not count. */
  async idle(): Promise<void> {
    await this.synced;
    await this.queue.idle();
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.worker;
  }

  private async work(synced: Promise<void>): Promise<void> {
    await synced;
    const { queue, options } = this;
    for (let name = await queue.get(); name !== undefined; name = await queue.get()) {
      try {
        await this.sync(name);
        queue.forget(name);
      } catch (error) {
        // Gone since the cache saw it: its delete event ends the matter.
        if (!(error instanceof NotFoundError)) {
          const delayMs = queue.retryLater(name);
          options.log.warn({ proxy: name, delayMs, error: String(error) }, "drain sync failed; retrying");
        }
      } finally {
        queue.done(name);
      }
    }
  }

  private async sync(name: string): Promise<void> {
    const { proxies, drainMs, log } = this.options;
    const proxy = proxies.get(name);
    if (proxy === undefined) return;
    const { uid, resourceVersion, finalizers = [] } = proxy.metadata;
    const seen = uid === undefined ? undefined : this.seenMarkedAt.get(uid);
    const step = drainStep(proxy, drainMs, Date.now(), seen);
    if (step.action === "wait") {
      const until = new Date(Date.now() + step.delayMs).toISOString();
      const draining = `draining until ${until} (${PROXY_DRAIN_FINALIZER} is held)`;
      if (await this.report(proxy, { draining }))
        this.options.recorder?.record(proxy, "Normal", EVENT_REASONS.ProxyDraining, "Drain", draining);
      this.queue.addAfter(name, step.delayMs);
      return;
    }
    if (step.action === "none") {
      if (proxy.metadata.deletionTimestamp === undefined) await this.report(proxy, "held");
      return;
    }
    // The resourceVersion makes the patch conditional: a Proxy changed meanwhile (or deleted and created
    // again) is a 409 and a new sync from the cache, never a finalizers list written over another writer's.
    const next =
      step.action === "add"
        ? [...finalizers, PROXY_DRAIN_FINALIZER]
        : finalizers.filter((finalizer) => finalizer !== PROXY_DRAIN_FINALIZER);
    await proxies.patch(name, { metadata: { resourceVersion, finalizers: next } });
    if (step.action === "remove") {
      log.info({ proxy: name, uid }, "drained; the Proxy may go");
      this.options.recorder?.record(
        proxy,
        "Normal",
        EVENT_REASONS.ProxyDrained,
        "Drain",
        "drained; the Proxy may go",
      );
    }
  }

  /**
   * Writes the Proxy's readiness conditions (status-readiness.ts in the schema) when they differ from the
   * stored ones (true when it wrote them); a write that meets a newer version leaves it to that version's sync.
   */
  private async report(proxy: ApiObject, state: Parameters<typeof proxyReadiness>[0]): Promise<boolean> {
    const generation = proxy.metadata.generation ?? 1;
    const stored = proxy.status;
    const conditions = nextConditions(stored?.conditions, proxyReadiness(state), generation, timestamp());
    const status = { observedGeneration: generation, conditions };
    if (isDeepStrictEqual(status, stored)) return false;
    try {
      const { name, resourceVersion } = proxy.metadata;
      await this.options.proxies.patchStatus(name, { metadata: { resourceVersion }, status });
      return true;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      return false;
    }
  }
}
