// Pulumi preview, up and destroy of the same N objects by three contenders, through the real CLI: this
// provider against the local server, this provider against kube-apiserver, and pulumi-kubernetes (the peer)
// against the same kube-apiserver. Each round gets fresh stacks (file:// backends); the servers and the
// PULUMI_HOME (the peer's plugin installed from its file) serve the whole run. Each operation runs on the
// three back to back, which one first rotating, so all meet the same load; the figures are medians and the
// ratios medians of each triple's ratios. With the "services" workload (scale-programs.ts) each `up` waits for
// every Service's revision to be live, and the stack's state after it is checked to say so (else the
// comparison is void: a provider that returned early would look fast).
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import type { PeerToolchain } from "../scripts/lib/peer";
import type { Backend } from "./backends";
import { type CliStack, type Operation, openCliStack } from "./cli-stack";
import { type ScaleProgram, type ScaleWorkload, writeScaleProgram } from "./scale-programs";
import { median, round } from "./stats";

export const SCALE_OPERATIONS = ["preview", "up", "destroy"] as const satisfies readonly Operation[];
export type ScaleOperation = (typeof SCALE_OPERATIONS)[number];

/**
 * The operations timed per workload. Services: `up` (create, each waiting for its revision) and `destroy`;
 * a preview of them asks the controller nothing, so it would time what the "objects" workload does.
 */
export const WORKLOAD_OPERATIONS: Record<ScaleWorkload, readonly ScaleOperation[]> = {
  objects: SCALE_OPERATIONS,
  services: ["up", "destroy"],
};

/** This provider on each backend, and the peer on kube. */
export const CONTENDERS = ["local", "kube", "peer"] as const;
export type Contender = (typeof CONTENDERS)[number];

/**
 * The peer's client-side rate limit (client-go's token bucket; 50 qps, burst 120 by default). This
 * provider has none: its requests are bounded only by the engine's parallelism (4 × GOMAXPROCS steps at
 * once), which bounds the peer's too. So the peer's limit is set where it never throttles either.
 */
export const PEER_CLIENT_LIMITS = { PULUMI_K8S_CLIENT_QPS: "10000", PULUMI_K8S_CLIENT_BURST: "10000" };

export interface ScaleContext {
  packageRoot: string;
  workload: ScaleWorkload;
  local: Backend;
  kube: Backend;
  peer: PeerToolchain;
  /** The CLI's TMPDIR and PULUMI_HOME, one each for the whole run. */
  tempDir: string;
  pulumiHome: string;
  /** Holds each round's stacks. */
  workDir: string;
}

export interface ScaleRun {
  n: number;
  rep: number;
  operation: ScaleOperation;
  /** Milliseconds. */
  timings: Record<Contender, number>;
  /** Services workload, after `up`: the Services whose state (what the provider returned) names a live revision. */
  live?: Record<Contender, number>;
  loadavg: number;
}

type PerOperation = Partial<Record<ScaleOperation, number>>;

export interface ScaleFigures {
  workload: ScaleWorkload;
  n: number;
  reps: number;
  operations: readonly ScaleOperation[];
  runs: ScaleRun[];
  /** Seconds, per operation. */
  medians: Record<Contender, PerOperation>;
  /** Medians of the per-triple ratios: kube ÷ local (this provider), kube ÷ peer (both on kube). */
  ratios: { kubeOverLocal: PerOperation; providerOverPeer: PerOperation };
  /** Services workload: false when some `up` returned before every Service's revision was live. */
  waited?: boolean;
}

function stackSettings(contender: Contender, context: ScaleContext, n: number) {
  const program: ScaleProgram = contender === "peer" ? "peer" : "provider";
  const backend = contender === "local" ? context.local : context.kube;
  // The provider and the peer share kube-apiserver: their objects differ by prefix (of the same length).
  const config: Record<string, string> = { n: String(n), prefix: contender === "peer" ? "k8" : "ex" };
  if (contender === "peer") config["kubernetes:kubeconfig"] = backend.kubeconfig as string;
  else Object.assign(config, backend.providerConfig);
  const env = {
    TMPDIR: context.tempDir,
    PULUMI_HOME: context.pulumiHome,
    ...(contender === "peer" && PEER_CLIENT_LIMITS),
  };
  return { program, config, env };
}

/** A fresh stack of the contender, in a directory of its own that `close` removes. */
async function openContender(contender: Contender, context: ScaleContext, n: number) {
  const dir = mkdtempSync(path.join(context.workDir, `${contender}-`));
  const { program, config, env } = stackSettings(contender, context, n);
  const programDir = path.join(dir, "program");
  const nodeModules =
    program === "peer" ? context.peer.nodeModules : path.join(context.packageRoot, "node_modules");
  writeScaleProgram(programDir, program, context.workload, nodeModules);
  const stack: CliStack = await openCliStack({ dir, programDir, label: contender, n, config, env });
  return { ...stack, close: () => rmSync(dir, { recursive: true, force: true }) };
}

type ContenderStack = Awaited<ReturnType<typeof openContender>>;

/** `CONTENDERS` rotated left by `turn`. */
function rotated(turn: number): Contender[] {
  const shift = turn % CONTENDERS.length;
  return [...CONTENDERS.slice(shift), ...CONTENDERS.slice(0, shift)];
}

/**
 * One untimed preview of each contender: the first CLI run reads the CLI, the plugins and node_modules from
 * disk and fills Node's compile cache, which a user pays once; without it, whoever went first paid it.
 */
export async function warmUpContenders(context: ScaleContext, n: number): Promise<void> {
  for (const contender of CONTENDERS) {
    const stack = await openContender(contender, context, n);
    await stack.time("preview");
    stack.close();
  }
  console.error("  warmed up: one untimed preview of each contender");
}

/**
 * The resources in the stack's state whose outputs name a live revision: this provider's Service keeps it
 * as `__liveRevision` (what its `liveRevision` output reads), the peer's CustomResource the object's
 * `status` as read when its await ended. Both are what the provider returned at the end of the create.
 */
async function liveInState(stack: Stack): Promise<number> {
  const { deployment } = await stack.exportStack();
  const resources = (deployment.resources ?? []) as { outputs?: Record<string, unknown> }[];
  return resources.filter(({ outputs = {} }) => {
    const status = outputs.status as { liveRevision?: unknown } | undefined;
    return Boolean(outputs.__liveRevision || status?.liveRevision);
  }).length;
}

export async function measurePulumiScale(context: ScaleContext, n: number, reps: number) {
  const runs: ScaleRun[] = [];
  const operations = WORKLOAD_OPERATIONS[context.workload];
  for (let rep = 0; rep < reps; rep++) {
    const stacks = {} as Record<Contender, ContenderStack>;
    for (const contender of CONTENDERS) stacks[contender] = await openContender(contender, context, n);
    for (const [index, operation] of operations.entries()) {
      const timings = {} as Record<Contender, number>;
      for (const contender of rotated(rep + index))
        timings[contender] = await stacks[contender].time(operation);
      const run: ScaleRun = { n, rep, operation, timings, loadavg: round(loadavg()[0] ?? 0, 1) };
      // Untimed, once all three have run the operation: what each `up` left in its state.
      if (context.workload === "services" && operation === "up") {
        const live = {} as Record<Contender, number>;
        for (const contender of CONTENDERS) live[contender] = await liveInState(stacks[contender].stack);
        run.live = live;
      }
      runs.push(run);
      const seconds = CONTENDERS.map((name) => `${name} ${round(timings[name] / 1000, 2)}s`).join(", ");
      const live =
        run.live &&
        `; live in state ${CONTENDERS.map((name) => `${name} ${run.live?.[name]}/${n}`).join(", ")}`;
      console.error(
        `  N=${n} rep ${rep + 1}/${reps} ${operation.padEnd(7)} ${seconds}${live ?? ""} (load average ${run.loadavg})`,
      );
    }
    for (const stack of Object.values(stacks)) stack.close();
  }
  const of = (operation: ScaleOperation) => runs.filter((run) => run.operation === operation);
  const perOperation = (value: (operation: ScaleOperation) => number): PerOperation =>
    Object.fromEntries(operations.map((operation) => [operation, value(operation)]));
  const medianOf = (contender: Contender) =>
    perOperation((operation) => round(median(of(operation).map((run) => run.timings[contender])) / 1000, 2));
  const ratio = (over: Contender, under: Contender) =>
    perOperation((operation) =>
      round(median(of(operation).map((run) => run.timings[over] / run.timings[under])), 2),
    );
  const figures: ScaleFigures = {
    workload: context.workload,
    n,
    reps,
    operations,
    runs,
    medians: { local: medianOf("local"), kube: medianOf("kube"), peer: medianOf("peer") },
    ratios: { kubeOverLocal: ratio("kube", "local"), providerOverPeer: ratio("kube", "peer") },
    ...(context.workload === "services" && {
      waited: runs.every(
        (run) => run.live === undefined || CONTENDERS.every((name) => run.live?.[name] === n),
      ),
    }),
  };
  return figures;
}
