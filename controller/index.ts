// The Service controller: keeps every Service's revisions and status in line with its spec. In the shape of
// sample-controller: it reads through informers' caches and writes through the API like any client; events
// only queue Service names (a revision's event queues its owner), `workers` workers take names from the
// queue (never one name in two workers at once: the queue hands a name out again only after `done`), and
// the sync is idempotent. Registries are asked in per-host lanes beside the workers (lanes.ts), never in
// them: a Service whose registry hangs waits in its host's lane, and every other Service is synced meanwhile. The controller's own writes come back as events too (assumed into the cache as
// the server answered them): the sync they queue finds the state as it would write it and writes nothing.

import { hostname } from "node:os";
import type { Registry } from "prom-client";
import type { CredentialsFile } from "../builder/credentials";
import type { ApiObject } from "../sdk/client/types";
import { CONDITION_REASONS, CONDITION_TYPES } from "../sdk/schema/status";
import { BundleSources } from "./bundle";
import type { Cluster, LastWrites } from "./cluster";
import type { ConditionState } from "./conditions";
import { ProxyDrain } from "./drain";
import { serviceKeyOf } from "./events";
import { type GitOptions, GitSources } from "./git-sources";
import type { InformerHandlers } from "./informer";
import { HostLanes, type LaneOptions } from "./lanes";
import { type ControllerLogger, silentLogger } from "./logger";
import { controllerMetrics } from "./metrics";
import { OwnedRevisions } from "./owned-revisions";
import { type BackoffOptions, WorkQueue } from "./queue";
import { EventRecorder, type RecorderOptions } from "./recorder";
import { controllingService } from "./revision";
import { abortion } from "./signals";
import { DEFAULT_GATEWAY } from "./status";
import { ServiceSync } from "./sync";
import { DEFAULT_TAG_POLL_INTERVAL_MS, startTagPoll } from "./tag-poll";

export {
  CREDENTIALS_FLAG,
  CredentialsFile,
  type CredentialsLookup,
  type CredentialsSource,
  NO_CREDENTIALS_FILE,
} from "../builder/credentials";
export type { ServiceStatus } from "../sdk/schema/status";
export { type Cluster, clusterOf, type KindCache, type LastWrites } from "./cluster";
export type { Condition, ConditionStatus } from "./conditions";
export { GIT_DEFAULTS, type GitOptions, type GitSources, type HookResult } from "./git-sources";
export {
  GIT_HOOK_PATH,
  type GitHookHandler,
  type GitHookOptions,
  type GitHookReceiver,
  gitHookHandler,
  MAX_HOOK_BODY_BYTES,
} from "./hooks/handler";
export { LANE_DEFAULTS, type LaneOptions } from "./lanes";
export type { ControllerLogger } from "./logger";
export type { BackoffOptions } from "./queue";
export { SERVICE_LABEL } from "./revision";
export { DEFAULT_TAG_POLL_INTERVAL_MS } from "./tag-poll";

export interface ControllerOptions {
  /** The API as the controller sees it: `clusterOf(client)`. */
  cluster: Cluster;
  /** Egress gateway names that exist (`--egress-gateways`). Default `["default"]`. */
  gateways?: readonly string[];
  log?: ControllerLogger;
  /** Per-Service backoff after a failure that may pass (registry down). Default 1 s doubling to 5 min. */
  backoff?: BackoffOptions;
  /** What `credentialsRef`s name (`--credentials`); without it every reference is reported missing. */
  credentials?: CredentialsFile;
  /** How often tags of OCI sources without a digest are resolved again (`--tag-poll-interval`); 0: never. */
  tagPollIntervalMs?: number;
  /** Git sources: allowed URLs, polling, build commands, timeouts, where mirrors live. */
  git?: GitOptions;
  /**
   * How long a deleted Proxy drains (`--proxy-deletion-grace`): the controller keeps its finalizer on every
   * Proxy and takes it off that long after the deletion. Unset: the controller leaves Proxies alone (no
   * cache of them, no permission needed).
   */
  proxyDeletionGraceMs?: number;
  /** Services synced at once (`--controller-workers`). Default `DEFAULT_WORKERS`. */
  workers?: number;
  /** Registry calls: per host at once, deadline, host backoff. */
  lanes?: Omit<LaneOptions, "signal">;
  /**
   * Kubernetes Events (recorder.ts), written through `cluster.events`: this replica's name (the Events'
   * reportingInstance, default the host name) and the rate limits. `false`: none recorded.
   */
  events?: Partial<Omit<RecorderOptions, "events" | "log">> | false;
  /** Where the controller's Prometheus metrics go (metrics.ts); without it, none are kept. */
  metrics?: Registry;
}

/**
 * Workers unless told otherwise. A sync is a few API round trips and almost no CPU (registries are asked
 * in the lanes, not in the sync), so workers mostly wait on the API server: 8 keep a local server or a
 * kube-apiserver busy on a 2-core machine (measured in docs/performance.md) without a burst of writes large
 * enough to crowd out other clients; client-go controllers default to 5 to 10 for the same reason.
 */
export const DEFAULT_WORKERS = 8;

export interface Controller {
  /**
   * Resolves once the caches hold their first lists, no Service or Proxy waits for a sync and none is
   * syncing; retries in backoff and drains under way do not count.
   */
  idle(): Promise<void>;
  /** Resolves once the caches hold their first lists, or once the controller stops before they do. */
  synced(): Promise<void>;
  /** Resolves once the caches have seen the writes up to these versions (see `Cluster.reached`). */
  reached(versions: LastWrites): Promise<void>;
  /** Stops watching, drops queued work and pending retries, aborts a tag resolution and builds under way. */
  stop(): Promise<void>;
  /** Git sources, for the webhook route. */
  git: GitSources;
}

export function startController(options: ControllerOptions): Controller {
  const { cluster } = options;
  const log = options.log ?? silentLogger;
  const metrics = options.metrics && controllerMetrics(options.metrics);
  const queue = new WorkQueue(options.backoff, metrics?.queue("services"));
  const stopping = new AbortController();
  const lanes = new HostLanes({
    ...options.lanes,
    signal: stopping.signal,
    ...(metrics && { onCall: (host: string, failed: boolean) => metrics.laneCall(host, failed) }),
  });
  metrics?.lanes(() => lanes.states());
  const owned = new OwnedRevisions(cluster.revisions);
  // Builds run beside the worker, never in it: a finished or advancing build queues its Service again.
  const git = new GitSources(
    { ...options.git, ...(options.credentials && { credentials: options.credentials }) },
    { services: cluster.services, log, requeue: (name) => queue.add(name) },
  );
  const bundles = new BundleSources(
    {
      signal: stopping.signal,
      ...(options.credentials && { credentials: options.credentials }),
    },
    git,
    { lanes, requeue: (name) => queue.add(name) },
  );
  const recorder =
    cluster.events && options.events !== false
      ? new EventRecorder({
          instance: hostname(),
          ...(metrics && { onOutcome: (outcome) => metrics.event(outcome) }),
          ...options.events,
          events: cluster.events,
          log,
        })
      : undefined;
  const sync = new ServiceSync({
    cluster,
    gateways: options.gateways ?? [DEFAULT_GATEWAY],
    log,
    bundles,
    git,
    ownedRevisions: (service) => owned.of(service),
    ...(recorder && { recorder }),
    ...(metrics && { metrics }),
  });

  const enqueue = (object: ApiObject) => {
    const key = serviceKeyOf(object);
    if (key !== undefined) queue.add(key);
    // A preview's change concerns its parent too: the parent lists its previews and makes a deleted one again.
    const parent = object.kind === "Service" ? controllingService(object)?.name : undefined;
    if (parent !== undefined) queue.add(parent);
  };
  const handlers: InformerHandlers<ApiObject> = {
    add: enqueue,
    update: (_, object) => enqueue(object),
    delete: enqueue,
  };
  // The first list adds every object: whatever a stop interrupted (a revision minted, status not yet
  // written) converges now.
  cluster.services.addHandlers(handlers);
  cluster.revisions.addHandlers(owned.handlers);
  cluster.revisions.addHandlers(handlers);
  // A user who adds a missing credentials entry sees the Services that named it minted, without a restart.
  const unwatchCredentials = options.credentials?.onChange(() => {
    // A rotated git password: repositories fetched with credentials are fetched again now.
    git.credentialsChanged();
    for (const service of cluster.services.list()) {
      if (!lacksCredentials(service)) continue;
      bundles.forget(service.metadata.name);
      queue.add(service.metadata.name);
    }
  });
  startTagPoll({
    services: cluster.services,
    bundles,
    intervalMs: options.tagPollIntervalMs ?? DEFAULT_TAG_POLL_INTERVAL_MS,
    log,
    enqueue: (name) => queue.add(name),
    retryPending: (name) => queue.retryPending(name),
    signal: stopping.signal,
  });

  const drain =
    options.proxyDeletionGraceMs === undefined
      ? undefined
      : new ProxyDrain({
          proxies: cluster.proxies,
          drainMs: options.proxyDeletionGraceMs,
          log,
          ...(recorder && { recorder }),
          ...(metrics && { queueObserver: metrics.queue("proxies") }),
          ...(options.backoff && { backoff: options.backoff }),
        });

  // As client-go's controllers: no sync before the caches hold the first lists.
  const synced = Promise.race([cluster.start(), abortion(stopping.signal)]);
  drain?.run(synced);
  const work = async () => {
    await synced;
    for (let name = await queue.get(); name !== undefined; name = await queue.get()) {
      // A sync queued while a retry backs off (by the status write that reported the failure, say) does
      // not try the failure again ahead of it, and leaves that retry as it is.
      const retryPending = queue.retryPending(name);
      const started = performance.now();
      const reconciled = (result: "success" | "error" | "requeue" | "requeue_after") =>
        metrics?.reconciled("service", result, (performance.now() - started) / 1000);
      try {
        const { retry, requeueAfterMs } = await sync.syncService(name, { retryPending });
        if (requeueAfterMs !== undefined) {
          // Waiting for a registry: its answer queues the Service; meanwhile status says how long.
          queue.addAfter(name, requeueAfterMs);
          reconciled("requeue_after");
        } else if (!retry) {
          queue.forget(name);
          reconciled("success");
        } else if (!retryPending) {
          const delayMs = queue.retryLater(name);
          log.info({ service: name, delayMs }, "sync will be retried");
          reconciled("requeue");
        } else reconciled("requeue");
      } catch (error) {
        if (stopping.signal.aborted) break;
        reconciled("error");
        const delayMs = queue.retryLater(name);
        log.error({ service: name, delayMs, error: String(error) }, "sync failed; retrying");
      } finally {
        queue.done(name);
      }
    }
  };
  const workerCount = Math.max(1, Math.floor(options.workers ?? DEFAULT_WORKERS));
  const workers = Promise.all(Array.from({ length: workerCount }, work));

  return {
    git,
    async idle() {
      await synced;
      // An answer from a registry queues its Service: idle once neither waits for the other.
      for (;;) {
        await Promise.all([queue.idle(), drain?.idle(), lanes.idle()]);
        if (queue.isIdle() && lanes.isIdle()) return;
      }
    },
    synced: () => synced,
    reached: (versions) => cluster.reached(versions),
    async stop() {
      unwatchCredentials?.();
      stopping.abort(new Error("the controller is stopping"));
      queue.shutDown();
      await Promise.all([workers, drain?.stop()]);
      recorder?.stop();
      await cluster.stop();
      await git.close();
    },
  };
}

const MISSING_CREDENTIALS: ReadonlySet<string> = new Set([
  CONDITION_REASONS.Accepted.CredentialsNotFound,
  CONDITION_REASONS.Accepted.GitCredentialsNotFound,
]);

/** Whether the Service's status says a credentialsRef it names is missing. */
function lacksCredentials(service: ApiObject): boolean {
  const conditions = service.status?.conditions;
  if (!Array.isArray(conditions)) return false;
  return (conditions as ConditionState[]).some(
    (condition) => condition?.type === CONDITION_TYPES.Accepted && MISSING_CREDENTIALS.has(condition.reason),
  );
}
