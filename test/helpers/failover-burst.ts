// A burst of Service creates and template changes whose sources are OCI tags on slow registries, for the
// failover tests (issue 35): each Service goes through `changes + 1` (template, digest) pairs, and every other
// change moves its tag too. A change is written once the previous one is minted, so the controller is owed a
// revision for every pair; `tally` then counts the revisions of each Service by what they run.
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import { canonicalJson } from "../../controller/naming";
import {
  type Client,
  CreateUnconfirmedError,
  newCreateToken,
  type Service,
  type ServiceRevision,
  TransportError,
} from "../../sdk/client";
import { applyDefaults, KINDS, type ServiceTemplateSpecInput } from "../../sdk/schema";
import { until } from "./controller-process";
import { pushArtifact, type Registry, type SlowManifests } from "./registry";

/**
 * The numbers both failover tests run (kube-apiserver and the local server). 40 Services × (a create and 2
 * changes) is 120 revisions owed, each one tag resolution held 0.5 to 2 s by the slow registry: with 4 slow
 * hosts (4 calls each at once, controller/lanes.ts) the burst resolves for about 15 s, so both kills land
 * mid-burst with calls out and writes unminted, and a kube file with its two takeovers (15 s each at least)
 * stays under 90 s on a loaded machine.
 */
export const FAILOVER_PLAN = {
  services: 40,
  /** Template changes per Service after its create. */
  changes: 2,
  /** The creates are spread out: Service i starts i × this after the first. */
  staggerMs: 100,
  hosts: 4,
  delay: { minMs: 500, maxMs: 2_000 },
  /** The kills land once this share of the burst is minted, the first and the second. */
  killAt: [0.25, 0.55],
} as const;

export interface BurstOptions {
  /** Where the tags are pushed. */
  registry: Registry;
  /** The slow proxies in front of `registry`: the Services name their hosts in turn. */
  hosts: readonly SlowManifests[];
  /** Bound on the whole burst, kills and restarts included. */
  timeoutMs: number;
}

/** What a Service went through, in order: its templates and the digest its tag stood for at each. */
interface Step {
  template: ServiceTemplateSpecInput;
  repo: string;
  digest: string;
}

/** The burst when a kill lands. */
export interface KillPoint {
  /** Tag resolutions under way at the slow registries. */
  calls: number;
  /** Creates and changes written (or being written) and not minted yet. */
  unminted: number;
}

export interface Tally {
  services: number;
  changes: number;
  tagMoves: number;
  revisions: number;
  /** Revisions beyond the first for a (template, digest) a Service went through. */
  doubleMints: number;
  /** (template, digest) pairs a Service went through that have no revision. */
  missing: number;
  /** Revisions for a (template, digest) the Service never went through. */
  unexpected: number;
  /** Services whose status does not name the revision of their last pair, live, accepted for their generation. */
  wrongStatus: string[];
}

const TAG = "stable";
const POLL_MS = 250;

const templateFor = (step: number): ServiceTemplateSpecInput => ({
  spec: { runtime: { compatibilityDate: "2024-09-01" }, env: [{ name: "STEP", value: String(step) }] },
});

/**
 * What a revision runs: its spec without the bundle (the template's spec, defaults applied) and the digest,
 * counted by content rather than by name (naming.ts hashes the same, with the template's metadata, none here).
 */
const runs = (spec: Record<string, unknown>, digest: string) => {
  const { bundle: _bundle, ...template } = spec;
  return canonicalJson({ template, digest });
};

const accepted = (service: Service) =>
  (service.status?.conditions as { type: string; status: string }[] | undefined)?.find(
    (condition) => condition.type === "Accepted",
  );

/** The Service's current generation is minted: status observed it and says Accepted. */
const settled = (service: Service | undefined) =>
  service !== undefined &&
  service.status?.observedGeneration === service.metadata.generation &&
  accepted(service)?.status === "True";

/**
 * Repeats an idempotent write while the API does not answer (the local server restarting): a create cut off
 * by the kill may have been stored, and its lookup refused (CreateUnconfirmedError); the same create token
 * again finds it as ours.
 */
async function whileUnreachable<T>(write: () => Promise<T>, deadline: number): Promise<T> {
  for (;;) {
    try {
      return await write();
    } catch (error) {
      const unanswered = error instanceof TransportError || error instanceof CreateUnconfirmedError;
      if (!unanswered || Date.now() > deadline) throw error;
      await sleep(POLL_MS);
    }
  }
}

export class FailoverBurst {
  private readonly steps = new Map<string, Step[]>();
  private readonly services = new Map<string, Service>();
  private written = 0;
  private settledSteps = 0;
  private running = true;
  private readonly deadline: number;

  constructor(
    private readonly client: Client,
    private readonly options: BurstOptions,
  ) {
    this.deadline = Date.now() + options.timeoutMs;
  }

  get totalSteps(): number {
    return FAILOVER_PLAN.services * (FAILOVER_PLAN.changes + 1);
  }

  /** Waits until `share` of the burst is minted while tag resolutions are under way: where a kill lands. */
  async killPoint(share: number): Promise<KillPoint> {
    const calls = () => this.options.hosts.reduce((sum, host) => sum + host.inFlight(), 0);
    await until("the controller to be minting with registry calls out", async () =>
      this.settledSteps >= share * this.totalSteps && calls() > 0 ? true : undefined,
    );
    return { calls: calls(), unminted: this.written - this.settledSteps };
  }

  /** Runs every Service's creates and changes; resolves once all are minted. */
  async run(): Promise<void> {
    const watching = this.watch();
    try {
      await Promise.all(Array.from({ length: FAILOVER_PLAN.services }, (_, index) => this.service(index)));
    } finally {
      this.running = false;
      await watching;
    }
  }

  /** One list of every Service per poll (not one read per Service): what the pipelines wait on. */
  private async watch(): Promise<void> {
    while (this.running) {
      try {
        for (const service of await this.client.services.listAll())
          this.services.set(service.metadata.name, service);
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
      }
      await sleep(POLL_MS);
    }
  }

  private async service(index: number): Promise<void> {
    const { registry, hosts } = this.options;
    const { changes, staggerMs } = FAILOVER_PLAN;
    const name = `app-${index}`;
    const path = `apps/${name}`;
    const repo = `${hosts[index % hosts.length]?.host}/${path}`;
    const steps: Step[] = [];
    this.steps.set(name, steps);
    await sleep(index * staggerMs);
    let digest = await pushArtifact(registry, { path, tag: TAG, content: `${name} 0` });
    const createToken = newCreateToken();
    steps.push({ template: templateFor(0), repo, digest });
    this.written++;
    await whileUnreachable(
      () =>
        this.client.services.create(
          {
            apiVersion: KINDS.Service.apiVersion,
            kind: "Service",
            metadata: { name },
            spec: { source: { oci: { repo, tag: TAG } }, template: templateFor(0) },
          },
          { createToken },
        ),
      this.deadline,
    );
    for (let step = 1; step <= changes; step++) {
      await this.untilSettled(name, step);
      if (step % 2 === 0)
        digest = await pushArtifact(registry, { path, tag: TAG, content: `${name} ${step}` });
      steps.push({ template: templateFor(step), repo, digest });
      this.written++;
      // A merge patch setting the same template is the same write again: safe to repeat after a lost answer.
      const patch = { spec: { template: templateFor(step) } };
      await whileUnreachable(() => this.client.services.patch(name, patch, { type: "merge" }), this.deadline);
    }
    await this.untilSettled(name, changes + 1);
  }

  /** Until the Service's `generation` is minted (its status says so). */
  private async untilSettled(name: string, generation: number): Promise<void> {
    for (;;) {
      const service = this.services.get(name);
      if (settled(service) && (service?.metadata.generation ?? 0) >= generation) break;
      if (Date.now() > this.deadline)
        throw new Error(
          `${name}: generation ${generation} not minted within ${this.options.timeoutMs / 1000} s; status ${JSON.stringify(service?.status)}`,
        );
      await sleep(POLL_MS);
    }
    this.settledSteps++;
  }

  /** Every Service's revisions, counted by (template, digest) against the pairs it went through. */
  async tally(): Promise<Tally> {
    const services = await this.client.services.listAll();
    const revisions = await this.client.serviceRevisions.listAll();
    const tally: Tally = {
      services: services.length,
      changes: FAILOVER_PLAN.services * FAILOVER_PLAN.changes,
      tagMoves: FAILOVER_PLAN.services * Math.floor(FAILOVER_PLAN.changes / 2),
      revisions: revisions.length,
      doubleMints: 0,
      missing: 0,
      unexpected: 0,
      wrongStatus: [],
    };
    for (const service of services) {
      const steps = this.steps.get(service.metadata.name) ?? [];
      const wanted = steps.map(({ template, repo, digest }) =>
        runs(applyDefaults("ServiceRevision", { ...template.spec, bundle: { repo, digest } }), digest),
      );
      const byRuns = new Map<string, ServiceRevision[]>();
      for (const revision of revisions) {
        if (!revision.metadata.ownerReferences?.some((owner) => owner.uid === service.metadata.uid)) continue;
        const key = runs(
          revision.spec as unknown as Record<string, unknown>,
          revision.spec.bundle.digest ?? "",
        );
        byRuns.set(key, [...(byRuns.get(key) ?? []), revision]);
      }
      for (const [key, minted] of byRuns) {
        if (!wanted.includes(key)) tally.unexpected += minted.length;
        else tally.doubleMints += minted.length - 1;
      }
      tally.missing += wanted.filter((key) => !byRuns.has(key)).length;
      const last = byRuns.get(wanted.at(-1) ?? "")?.[0]?.metadata.name;
      const { status } = service;
      if (
        last === undefined ||
        status?.latestRevision !== last ||
        status?.liveRevision !== last ||
        !settled(service)
      )
        tally.wrongStatus.push(`${service.metadata.name}: ${JSON.stringify(status)}`);
    }
    return tally;
  }
}

/**
 * Exactly one revision per (template, digest) every Service went through, its status right, and every kill
 * landed with resolutions under way and writes unminted.
 */
export function expectExact(burst: FailoverBurst, tally: Tally, kills: readonly KillPoint[]): void {
  expect(tally).toMatchObject({
    services: FAILOVER_PLAN.services,
    doubleMints: 0,
    missing: 0,
    unexpected: 0,
    wrongStatus: [],
  });
  expect(tally.revisions).toBe(burst.totalSteps);
  expect(kills).toHaveLength(FAILOVER_PLAN.killAt.length);
  for (const { calls, unminted } of kills) {
    expect(calls).toBeGreaterThan(0);
    expect(unminted).toBeGreaterThan(0);
  }
}

/** The figures line of one run, as docs/kubernetes.md quotes it. */
export function figures(
  backend: string,
  setup: string,
  kills: readonly KillPoint[],
  tally: Tally,
  recovery: string,
): string {
  const out = kills.map(({ calls }) => calls).join(", ");
  const unminted = kills.map(({ unminted }) => unminted).join(", ");
  return `failover(${backend}): ${setup}, ${kills.length} kills (registry calls out: ${out}; writes unminted: ${unminted}), ${tally.services} Services, ${tally.changes} template changes (${tally.tagMoves} with the tag moved), ${tally.revisions} revisions, double mints ${tally.doubleMints}, missing ${tally.missing}, unexpected ${tally.unexpected}, ${recovery}`;
}
