// The controller's Prometheus metrics (prom-client), under the names dashboards and alerts already use:
// client-go's work queue (`workqueue_*`, label `name`), controller-runtime's reconciles
// (`controller_runtime_reconcile_*`, label `controller`), client-go's leader election
// (`leader_election_master_status`), and the project's own under `exampledev_` (revisions minted, builds,
// registry lanes, Events). One set per registry, made on first use: the local server passes its own registry
// (its `/metrics` then shows the embedded controller's too), the controller command one it serves beside
// its health endpoints. Counting is a few map operations per sync; nothing here does I/O.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** client-go's work queue buckets: 10 ns to 10 s by powers of ten. */
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10];
/** controller-runtime's reconcile time buckets. */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** What a work queue reports (queue.ts calls these). */
export interface QueueObserver {
  added(): void;
  /** A key was handed out after waiting `seconds`. */
  started(seconds: number): void;
  /** A key's processing ended after `seconds`. */
  finished(seconds: number): void;
  retried(): void;
  /** The queue's state now: waiting keys and the start times (ms) of those being processed. */
  source(state: () => { depth: number; processingSince: Iterable<number> }): () => void;
}

export type ReconcileResult = "success" | "error" | "requeue" | "requeue_after";

export interface LaneState {
  host: string;
  running: number;
  queued: number;
  failures: number;
  backedOff: boolean;
}

export class ControllerMetrics {
  private readonly adds: Counter<"name">;
  private readonly depth: Gauge<"name">;
  private readonly queueDuration: Histogram<"name">;
  private readonly workDuration: Histogram<"name">;
  private readonly retries: Counter<"name">;
  private readonly sources = new Map<
    string,
    Set<() => { depth: number; processingSince: Iterable<number> }>
  >();
  private readonly reconciles: Counter<"controller" | "result">;
  private readonly reconcileErrors: Counter<"controller">;
  private readonly reconcileTime: Histogram<"controller">;
  private readonly leader: Gauge<"name">;
  private readonly minted: Counter;
  private readonly builds: Counter<"phase">;
  private readonly events: Counter<"outcome">;
  private readonly laneCalls: Counter<"host" | "result">;
  private laneSource: (() => LaneState[]) | undefined;
  private readonly leaders = new Map<string, () => boolean>();

  constructor(readonly registry: Registry) {
    const registers = [registry];
    const sources = this.sources;
    const states = (name: string) => [...(sources.get(name) ?? [])].map((state) => state());
    this.adds = new Counter({
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
      labelNames: ["name"],
      registers,
    });
    this.depth = new Gauge({
      name: "workqueue_depth",
      help: "Current depth of workqueue",
      labelNames: ["name"],
      registers,
      collect() {
        for (const name of sources.keys())
          this.set(
            { name },
            states(name).reduce((sum, state) => sum + state.depth, 0),
          );
      },
    });
    this.queueDuration = new Histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested",
      labelNames: ["name"],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.workDuration = new Histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes",
      labelNames: ["name"],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.retries = new Counter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames: ["name"],
      registers,
    });
    const inFlight = (name: string) => states(name).flatMap((state) => [...state.processingSince]);
    new Gauge({
      name: "workqueue_unfinished_work_seconds",
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
      labelNames: ["name"],
      registers,
      collect() {
        const now = Date.now();
        for (const name of sources.keys())
          this.set(
            { name },
            inFlight(name).reduce((sum, since) => sum + (now - since) / 1000, 0),
          );
      },
    });
    new Gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running",
      labelNames: ["name"],
      registers,
      collect() {
        const now = Date.now();
        for (const name of sources.keys())
          this.set({ name }, Math.max(0, ...inFlight(name).map((since) => (now - since) / 1000)));
      },
    });
    this.reconciles = new Counter({
      name: "controller_runtime_reconcile_total",
      help: "Total number of reconciliations per controller",
      labelNames: ["controller", "result"],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: "controller_runtime_reconcile_errors_total",
      help: "Total number of reconciliation errors per controller",
      labelNames: ["controller"],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: "controller_runtime_reconcile_time_seconds",
      help: "Length of time per reconciliation per controller",
      labelNames: ["controller"],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    const leaders = this.leaders;
    this.leader = new Gauge({
      name: "leader_election_master_status",
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
      labelNames: ["name"],
      registers,
      collect() {
        for (const [name, leads] of leaders) this.set({ name }, leads() ? 1 : 0);
      },
    });
    this.minted = new Counter({
      name: "exampledev_revisions_minted_total",
      help: "ServiceRevisions this controller created",
      registers,
    });
    this.builds = new Counter({
      name: "exampledev_builds_total",
      help: "Git builds by phase reached: Running (started), Succeeded, Failed",
      labelNames: ["phase"],
      registers,
    });
    this.events = new Counter({
      name: "exampledev_events_total",
      help: "Kubernetes Events by outcome: created, patched (a series counted), dropped (rate-limited per object)",
      labelNames: ["outcome"],
      registers,
    });
    this.laneCalls = new Counter({
      name: "exampledev_lane_calls_total",
      help: "Registry calls made in the per-host lanes, by host and result (ok, failed: the host failed)",
      labelNames: ["host", "result"],
      registers,
    });
    const lanes = () => this.laneSource?.() ?? [];
    const laneGauge = (name: string, help: string, value: (state: LaneState) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["host"],
        registers,
        collect() {
          this.reset();
          for (const state of lanes()) this.set({ host: state.host }, value(state));
        },
      });
    laneGauge("exampledev_lane_in_flight", "Registry calls under way, per host", (state) => state.running);
    laneGauge(
      "exampledev_lane_waiting",
      "Registry calls waiting for a free slot or a backoff, per host",
      (state) => state.queued,
    );
    laneGauge(
      "exampledev_lane_consecutive_failures",
      "Failed calls in a row, per host",
      (state) => state.failures,
    );
    laneGauge("exampledev_lane_backed_off", "1 while the host is backed off after failures", (state) =>
      state.backedOff ? 1 : 0,
    );
  }

  /** The observer of the work queue `name` (client-go's `name` label: "services", "proxies"). */
  queue(name: string): QueueObserver {
    const labels = { name };
    this.adds.inc(labels, 0);
    this.retries.inc(labels, 0);
    return {
      added: () => this.adds.inc(labels),
      started: (seconds) => this.queueDuration.observe(labels, seconds),
      finished: (seconds) => this.workDuration.observe(labels, seconds),
      retried: () => this.retries.inc(labels),
      source: (state) => {
        const set = this.sources.get(name) ?? new Set();
        this.sources.set(name, set);
        set.add(state);
        return () => set.delete(state);
      },
    };
  }

  reconciled(controller: string, result: ReconcileResult, seconds: number): void {
    this.reconciles.inc({ controller, result });
    if (result === "error") this.reconcileErrors.inc({ controller });
    this.reconcileTime.observe({ controller }, seconds);
  }

  /** `leader_election_master_status{name}`: 1 while `leads()` says this replica holds the Lease `name`. */
  leaderOf(name: string, leads: () => boolean): void {
    this.leaders.set(name, leads);
    this.leader.set({ name }, leads() ? 1 : 0);
  }

  revisionMinted(): void {
    this.minted.inc();
  }

  build(phase: "Running" | "Succeeded" | "Failed"): void {
    this.builds.inc({ phase });
  }

  event(outcome: "created" | "patched" | "dropped"): void {
    this.events.inc({ outcome });
  }

  laneCall(host: string, failed: boolean): void {
    this.laneCalls.inc({ host, result: failed ? "failed" : "ok" });
  }

  lanes(source: () => LaneState[]): void {
    this.laneSource = source;
  }
}

const perRegistry = new WeakMap<Registry, ControllerMetrics>();

/** The registry's controller metrics, made on first use (a restarted controller keeps counting in them). */
export function controllerMetrics(registry: Registry): ControllerMetrics {
  let metrics = perRegistry.get(registry);
  if (metrics === undefined) {
    metrics = new ControllerMetrics(registry);
    perRegistry.set(registry, metrics);
  }
  return metrics;
}
