// The highly available environment's faults through real processes (issue 48), for test/kube/ha-faults.test.ts
// (its quick form in `npm test`) and scripts/kube-faults.sh (its full form, 200 Services): kube-apiserver on a
// three-member etcd, two kube-apiservers behind haproxy (kube/env.ts), the admission webhook, and the
// controller as two replica processes electing a leader through the Lease, each started again when it exits
// as a Deployment's kubelet would. A stack of the `fleet` fixture goes through `pulumi up` after `pulumi up`,
// each changing every Service's template, while a fault lands; then every Service's revisions are counted by
// (template, digest) against the generations it went through.
import { appendFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_LEASE_NAME } from "../../controller/leader-election";
import { type KubeApi, startKubeApi } from "../../kube/api";
import type { Apiserver } from "../../kube/apiserver";
import { type EtcdMember, etcdHealth, etcdHealthy } from "../../kube/etcd";
import { waitUntilHealthy } from "../../kube/processes";
import { type Client, createClient, type Service, type ServiceRevision } from "../../sdk/client";
import { SECRETS_NAMESPACE } from "../../sdk/schema";
import { type Census, census } from "./census";
import { type ControllerProcess, pidOf, spawnController, until } from "./controller-process";
import { createTestStack, type TestStack } from "./pulumi";

/** Services in the stack: a few in `npm test`, 200 in the full form (EXAMPLEDEV_HA_SERVICES). */
export const HA_SERVICES = Number(process.env.EXAMPLEDEV_HA_SERVICES ?? 4);
/** Where each step's figures are appended as JSON lines (scripts/kube-faults.sh prints them as a table). */
const FIGURES_FILE = process.env.EXAMPLEDEV_HA_FIGURES;

const FLEET = path.resolve(__dirname, "../e2e/fixtures/fleet");
const REPO = "registry.example.dev/team/app";
/** Pinned by digest: no registry is asked, so a (template, digest) pair is the template's generation. */
const DIGEST = `sha256:${"7".repeat(64)}`;
const POLL_MS = 100;
/** A kubelet restarts an exited container after a back-off (10 s at first); 1 s keeps the test short. */
const RESTART_MS = 1_000;

/**
 * The controller's replicas as a Deployment runs them: started again whenever one exits (killed, or losing
 * its lease, which exits with code 1 as client-go's controllers do).
 */
export class ControllerReplicas {
  /** Every replica started, the exited ones included (their logs stay readable). */
  readonly started: ControllerProcess[] = [];
  /** How each exit ended. */
  readonly exits: { code: number | null; signal: NodeJS.Signals | null }[] = [];
  private running = true;

  constructor(
    private readonly kubeconfig: string,
    count: number,
  ) {
    for (let i = 0; i < count; i++) this.start();
  }

  private start(): void {
    // Replicas on one machine: no health endpoint, so no port to share.
    const replica = spawnController(this.kubeconfig, ["--health-port", "0"]);
    this.started.push(replica);
    void replica.exited.then((end) => {
      if (!this.running) return;
      this.exits.push(end);
      setTimeout(() => {
        if (this.running) this.start();
      }, RESTART_MS);
    });
  }

  live(): ControllerProcess[] {
    return this.started.filter(({ child }) => child.exitCode === null && child.signalCode === null);
  }

  /** The replica holding the lease now. */
  leader(admin: Client, timeoutMs = 90_000): Promise<ControllerProcess> {
    return until(
      "a replica to hold the lease",
      async () => {
        const lease = await admin.leases.get(SECRETS_NAMESPACE, DEFAULT_LEASE_NAME).catch(() => undefined);
        const holder = lease?.spec.holderIdentity;
        return holder ? this.live().find(({ child }) => child.pid === pidOf(holder)) : undefined;
      },
      timeoutMs,
    );
  }

  /** Log lines that would show a mint tried twice or a sync that failed, across every replica. */
  trouble(): string[] {
    return this.started.flatMap((replica) =>
      replica
        .log()
        .split("\n")
        // Replicas started together may all create the lease, and all but one get 409.
        .filter((line) => !line.includes('"msg":"lease write failed"'))
        .filter((line) => /AlreadyExists|RevisionNameTaken/.test(line)),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(
      this.live().map(async ({ child, exited }) => {
        child.kill("SIGTERM");
        const killed = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(killed);
      }),
    );
  }
}

export interface HaEnvironment {
  api: KubeApi;
  /** The admin through the balancer. */
  admin: Client;
  controllers: ControllerReplicas;
  /** The fleet stack, its provider configured with the environment's kubeconfig (the balancer). */
  fleet: TestStack;
  close(): Promise<void>;
}

export async function startHaEnvironment(): Promise<HaEnvironment> {
  if (HA_SERVICES < 2 || HA_SERVICES % 2 !== 0)
    throw new Error(`EXAMPLEDEV_HA_SERVICES: ${HA_SERVICES} is not an even number of at least 2`);
  const api = await startKubeApi({ etcdMembers: 3, apiservers: 2 });
  const admin = createClient({ baseUrl: api.url, token: api.token, ca: api.caCert });
  const controllers = new ControllerReplicas(api.controllerKubeconfig, 2);
  const fleet = await createTestStack(FLEET, { stackName: "ha" });
  // The fixture declares two Services per `count`, and a Proxy and a ServiceRevision per three.
  await fleet.stack.setAllConfig({
    "exampledev:kubeconfig": { value: api.kubeconfig },
    repo: { value: REPO },
    digest: { value: DIGEST },
    count: { value: String(HA_SERVICES / 2) },
  });
  return {
    api,
    admin,
    controllers,
    fleet,
    async close() {
      await fleet.dispose();
      await controllers.stop();
      await admin.close();
      await api.close();
    },
  };
}

/** A fault to land during an `up`, once `share` of its Services are written. */
export interface Fault {
  share: number;
  run(): Promise<void>;
}

export interface UpRun {
  generation: string;
  ms: number;
  /** The CLI's error when the run failed. */
  error?: string;
  /** When the fault landed: Services written at the generation, and of those not minted yet. */
  landed?: { written: number; unminted: number; afterMs: number };
}

const accepted = (service: Service) =>
  (service.status?.conditions as { type: string; status: string }[] | undefined)?.find(
    (condition) => condition.type === "Accepted",
  );

/** The Service's current generation is minted: its status observed it and says Accepted. */
const minted = (service: Service) =>
  service.status?.observedGeneration === service.metadata.generation && accepted(service)?.status === "True";

/** `pulumi up` of the fleet at `generation` (every Service's template changes), and `fault` partway. */
export async function upAt(env: HaEnvironment, generation: string, fault?: Fault): Promise<UpRun> {
  const { stack } = env.fleet;
  await stack.setConfig("generation", { value: generation });
  const began = Date.now();
  let done = false;
  const run = stack.up().then(
    () => undefined,
    (error: unknown) => String(error instanceof Error ? error.message : error),
  );
  void run.finally(() => {
    done = true;
  });
  let landed: UpRun["landed"];
  if (fault !== undefined) {
    const wanted = Math.max(1, Math.ceil(fault.share * HA_SERVICES));
    while (!done) {
      const written = await env.admin.services
        .listAll({ labelSelector: `generation=${generation}` })
        .catch(() => []);
      if (written.length >= wanted) {
        landed = {
          written: written.length,
          unminted: written.filter((service) => !minted(service)).length,
          afterMs: Date.now() - began,
        };
        await fault.run();
        break;
      }
      await sleep(POLL_MS);
    }
  }
  const error = await run;
  return {
    generation,
    ms: Date.now() - began,
    ...(error !== undefined && { error }),
    ...(landed !== undefined && { landed }),
  };
}

export interface HaTally {
  services: number;
  revisions: number;
  /** Revisions beyond the first for a (template, digest) a Service went through. */
  doubleMints: number;
  /** (template, digest) pairs a Service went through that have no revision. */
  missing: number;
  /** Revisions for a pair the Service never went through. */
  unexpected: number;
  /** Services whose status does not name the revision of their last pair, live, accepted for their generation. */
  wrongStatus: string[];
  /** The stack's state against the server: nothing lost, no orphan, no duplicate. */
  census: Census;
}

/** The template's generation a revision runs (the fixture's only template change), with its digest. */
const pairOf = (revision: ServiceRevision) => {
  const env = (revision.spec as { env?: { name: string; value?: string }[] }).env ?? [];
  return `${env.find(({ name }) => name === "GENERATION")?.value}@${revision.spec.bundle.digest}`;
};

/** Every Service's revisions against the generations it went through, in order. */
export async function tallyFleet(env: HaEnvironment, generations: readonly string[]): Promise<HaTally> {
  const services = (await env.admin.services.listAll()).filter(
    (service) => (service.metadata.ownerReferences ?? []).length === 0,
  );
  const revisions = await env.admin.serviceRevisions.listAll();
  const wanted = generations.map((generation) => `${generation}@${DIGEST}`);
  const tally: HaTally = {
    services: services.length,
    revisions: 0,
    doubleMints: 0,
    missing: 0,
    unexpected: 0,
    wrongStatus: [],
    census: await census(env.admin, env.fleet.stack),
  };
  for (const service of services) {
    const owned = revisions.filter((revision) =>
      revision.metadata.ownerReferences?.some((owner) => owner.uid === service.metadata.uid),
    );
    tally.revisions += owned.length;
    const byPair = new Map<string, ServiceRevision[]>();
    for (const revision of owned)
      byPair.set(pairOf(revision), [...(byPair.get(pairOf(revision)) ?? []), revision]);
    for (const [pair, minted] of byPair) {
      if (wanted.includes(pair)) tally.doubleMints += minted.length - 1;
      else tally.unexpected += minted.length;
    }
    tally.missing += wanted.filter((pair) => !byPair.has(pair)).length;
    const last = byPair.get(wanted.at(-1) ?? "")?.[0]?.metadata.name;
    const { status } = service;
    if (
      last === undefined ||
      status?.latestRevision !== last ||
      status?.liveRevision !== last ||
      !minted(service)
    )
      tally.wrongStatus.push(`${service.metadata.name}: ${JSON.stringify(status)}`);
  }
  return tally;
}

/** What the controller last wrote of each Service: equal before and after a fault it must not act on. */
export function statuses(services: readonly Service[]): Record<string, string> {
  return Object.fromEntries(services.map((s) => [s.metadata.name, JSON.stringify(s.status ?? {})]));
}

/** The figures of one step: printed (`[ha] ...`) and appended to EXAMPLEDEV_HA_FIGURES when set. */
export function report(step: string, figures: Record<string, unknown>): void {
  console.log(`[ha] ${step}: ${JSON.stringify(figures)}`);
  if (FIGURES_FILE) appendFileSync(FIGURES_FILE, `${JSON.stringify({ step, ...figures })}\n`);
}

/** A tally's figures, for `report`. */
export const tallyFigures = (tally: HaTally) => ({
  services: tally.services,
  revisions: tally.revisions,
  doubleMints: tally.doubleMints,
  missing: tally.missing,
  unexpected: tally.unexpected,
  wrongStatus: tally.wrongStatus.length,
  orphans: tally.census.orphans.length,
  duplicates: tally.census.duplicates.length,
  lost: tally.census.declared - tally.census.onServer,
});

/** Starts a killed kube-apiserver again and waits until it is ready and back in the balancer's rotation. */
export async function restartApiserver(env: HaEnvironment, server: Apiserver): Promise<number> {
  const began = Date.now();
  server.restart();
  const authorization = { authorization: `Bearer ${env.api.token}` };
  await waitUntilHealthy(server.current, `${server.url}/readyz`, env.api.dispatcher, authorization);
  // haproxy takes a server back after two passed checks, 500 ms apart.
  await sleep(1_500);
  return Date.now() - began;
}

/** Starts killed etcd members again and waits until every member is healthy (a leader, all joined). */
export async function restartEtcd(env: HaEnvironment, members: EtcdMember[]): Promise<number> {
  const began = Date.now();
  for (const member of members) member.restart();
  await until(
    "every etcd member healthy",
    async () => ((await Promise.all(env.api.etcd.map(etcdHealthy))).every(Boolean) ? true : undefined),
    120_000,
  ).catch(async (error: unknown) => {
    const health = await Promise.all(
      env.api.etcd.map(async (member) => `${member.name}: ${await etcdHealth(member)}`),
    );
    throw new Error(`${String(error)}; ${health.join("; ")}`);
  });
  return Date.now() - began;
}

/** Until both kube-apiservers are ready (after etcd came back: their /readyz checks it). */
export async function apiserversReady(env: HaEnvironment): Promise<void> {
  const authorization = { authorization: `Bearer ${env.api.token}` };
  await Promise.all(
    env.api.apiservers.map((server) =>
      waitUntilHealthy(server.current, `${server.url}/readyz`, env.api.dispatcher, authorization),
    ),
  );
  await sleep(1_500);
}
