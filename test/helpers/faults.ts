// A fault-injecting handler for the loopback proxy (`startLoopbackProxy`): what a flaky network and an
// overloaded API gateway do to the provider's requests, at a chosen rate, reproducibly from a seed.
import type { ProxiedReply, ProxiedRequest, ProxyHandler } from "./provider";
import { statusBody } from "./provider";

/**
 * - `unavailable`: 503 without forwarding (the gateway is overloaded);
 * - `throttled`: 429 with `Retry-After: 1` without forwarding;
 * - `reset-before`: the connection drops before the request reaches the API;
 * - `reset-after`: the API serves (and commits) the request, then the answer is lost;
 * - `latency`: forwarded after a delay.
 */
export type FaultKind = "unavailable" | "throttled" | "reset-before" | "reset-after" | "latency";
export const FAULT_KINDS: readonly FaultKind[] = [
  "unavailable",
  "throttled",
  "reset-before",
  "reset-after",
  "latency",
];

export interface FaultPlan {
  /** Share of the matching requests that get a fault, in [0, 1]. */
  rate: number;
  /** Which faults, chosen uniformly; default all. */
  kinds?: readonly FaultKind[];
  /** Which requests may get one; default all. */
  matches?: (request: ProxiedRequest) => boolean;
  /** For the same seed and the same requests in the same order, the same faults. */
  seed?: number;
  latencyMs?: number;
}

export interface FaultInjector {
  handler: ProxyHandler;
  /** Faults injected so far, by kind. */
  counts: Record<FaultKind, number>;
  /** Requests seen so far. */
  requests: number;
  /** Changes the plan from the next request on (e.g. `{ rate: 0 }` to let everything through). */
  set(plan: Partial<FaultPlan>): void;
}

/** mulberry32: a small seeded generator, so that a failing run can be replayed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function injectFaults(initial: FaultPlan): FaultInjector {
  let plan: FaultPlan = { ...initial };
  const random = seeded(initial.seed ?? 1);
  const counts = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  const injector: FaultInjector = {
    counts,
    requests: 0,
    set: (changes) => {
      plan = { ...plan, ...changes };
    },
    handler: async (request, forward): Promise<ProxiedReply> => {
      injector.requests++;
      const kinds = plan.kinds ?? FAULT_KINDS;
      if (plan.matches?.(request) === false || random() >= plan.rate || kinds.length === 0) return forward();
      const kind = kinds[Math.floor(random() * kinds.length)] as FaultKind;
      counts[kind]++;
      switch (kind) {
        case "unavailable":
          return {
            status: 503,
            body: statusBody(503, "ServiceUnavailable", "injected: the gateway is overloaded"),
          };
        case "throttled":
          return {
            status: 429,
            headers: { "retry-after": "1" },
            body: statusBody(429, "TooManyRequests", "injected: slow down"),
          };
        case "reset-before":
          return { status: 0, reset: true };
        case "reset-after":
          await forward();
          return { status: 0, reset: true };
        case "latency":
          await sleep(plan.latencyMs ?? 300);
          return forward();
      }
    },
  };
  return injector;
}
