// One replica of the controller against a Kubernetes API server: it runs the controller only while it holds
// the Lease (leader-election.ts). The others wait with no informer open and write nothing; the leader's
// caches are filled by their first list once it leads, so it starts from what the previous leader wrote.
import type { Client } from "../sdk/client";
import { clusterOf } from "./cluster";
import { type Controller, type ControllerOptions, startController } from "./index";
import type { InformerOptions } from "./informer";
import { type LeaderElectionOptions, runLeaderElection } from "./leader-election";
import { type ControllerLogger, silentLogger } from "./logger";

export interface ElectedControllerOptions {
  client: Client;
  /** The controller's options but its cluster, which is `clusterOf(client)`. */
  controller: Omit<ControllerOptions, "cluster" | "log">;
  election: Omit<LeaderElectionOptions, "leases" | "log">;
  informers?: InformerOptions;
  log?: ControllerLogger;
}

/**
 * Where a replica stands: waiting for the Lease, leading while its informers' first lists run, leading
 * with its caches synced, or done (stopping, stopped, or the Lease lost).
 */
export type ReplicaPhase = "standby" | "syncing" | "leading" | "stopped";

export interface ElectedController {
  phase(): ReplicaPhase;
  /** The controller while this replica leads with its caches synced; undefined otherwise. */
  running(): Controller | undefined;
  /** Resolves once this replica leads and its controller is idle after the first lists. */
  leading: Promise<void>;
  /**
   * Resolves when the lease was lost. The controller is being stopped; the caller should exit the process
   * (non-zero, for a supervisor to start it again) as client-go's controllers do, not wait for it.
   */
  lost: Promise<void>;
  /** Stops the controller, then releases the lease so another replica takes over at once. */
  stop(): Promise<void>;
}

export function runElectedController(options: ElectedControllerOptions): ElectedController {
  const log = options.log ?? silentLogger;
  const stopping = new AbortController();
  /** Set as stop() begins: a lease acquired after that starts nothing (stop() releases it). */
  let stopRequested = false;
  let controller: Controller | undefined;
  let phase: ReplicaPhase = "standby";
  let led: () => void = () => {};
  const leading = new Promise<void>((resolve) => {
    led = resolve;
  });
  const election = runLeaderElection(
    { ...options.election, leases: options.client.leases, log },
    (leadership) => {
      if (stopRequested) return;
      phase = "syncing";
      const cluster = clusterOf(options.client, options.informers);
      const started = startController({ ...options.controller, cluster, log });
      controller = started;
      // Synced: the informers hold their first lists (the workers may still be busy with them).
      started.synced().then(
        () => {
          if (phase === "syncing") phase = "leading";
        },
        () => {},
      );
      // Losing the lease stops the workers now; the process exits after, without waiting for them. (On
      // stop() they have stopped already.)
      leadership.addEventListener("abort", () => stopping.signal.aborted || void started.stop(), {
        once: true,
      });
      started.idle().then(led, () => {});
    },
    stopping.signal,
  );
  election.then(() => {
    phase = "stopped";
  });
  let stopped: Promise<void> | undefined;
  return {
    phase: () => phase,
    running: () => (phase === "leading" ? controller : undefined),
    leading,
    lost: election.then((end) => (end === "lost" ? undefined : new Promise<void>(() => {}))),
    stop: () => {
      stopped ??= (async () => {
        stopRequested = true;
        phase = "stopped";
        // The work the lease guards ends before the lease is released (client-go's ReleaseOnCancel rule).
        await controller?.stop();
        stopping.abort();
        await election;
      })();
      return stopped;
    },
  };
}
