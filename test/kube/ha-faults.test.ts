import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { etcdHealthy, etcdLeader } from "../../kube/etcd";
import { createRawClient } from "../../sdk/client/raw";
import { DEFAULT_RETRY } from "../../sdk/client/retry";
import { DEFAULT_TIMEOUT_MS } from "../../sdk/client/settings";
import {
  apiserversReady,
  HA_SERVICES,
  type HaEnvironment,
  type HaTally,
  report,
  restartApiserver,
  restartEtcd,
  startHaEnvironment,
  statuses,
  tallyFigures,
  tallyFleet,
  type UpRun,
  upAt,
} from "../helpers/ha-faults";

/**
 * The highly available environment (`npm run kube -- --etcd-members 3 --apiservers 2`: three etcd members, two
 * kube-apiservers behind haproxy) with the controller's two replicas as processes, and its faults through real
 * processes during `pulumi up` of the fleet fixture, every Service's template changed by each run: kill -9 of a
 * kube-apiserver; of etcd's leader, restarted to rejoin; two of the three members down (quorum lost); the
 * controller's leader with a kube-apiserver. After each, every Service has exactly one revision per (template,
 * digest) it went through, and the stack's state and the server agree (no orphan, no duplicate, nothing lost).
 * `npm test` runs it with a few Services; `bash scripts/kube-faults.sh` with 200 (EXAMPLEDEV_HA_SERVICES), and
 * prints the figures each step reports (`[ha] <step>: {...}`).
 */

/**
 * The provider's deadline for a request the API does not answer: every attempt's timeout, its retries' longest
 * backoffs, and the budget it rides a restarting server through. A write to an API without quorum must fail
 * within it (not hang on a wait for the controller).
 */
const deadlineMs = (timeoutMs: number, maxRetries: number) =>
  timeoutMs * (maxRetries + 1) + DEFAULT_RETRY.maxDelayMs * maxRetries + DEFAULT_RETRY.restartBudgetMs;
/**
 * The settings the quorum-lost run is given (EXAMPLEDEV_HA_QUORUM_DEFAULTS=1: the defaults, 30 s and 3 retries,
 * as the full form runs them): with the defaults each request the API holds costs minutes before it fails.
 */
const QUORUM_SETTINGS =
  process.env.EXAMPLEDEV_HA_QUORUM_DEFAULTS === "1"
    ? { timeoutMs: DEFAULT_TIMEOUT_MS, maxRetries: DEFAULT_RETRY.maxRetries }
    : { timeoutMs: 10_000, maxRetries: 1 };
const PROVIDER_DEADLINE_MS = deadlineMs(QUORUM_SETTINGS.timeoutMs, QUORUM_SETTINGS.maxRetries);
/** Where a fault lands in an `up`: once this share of its Services is written. */
const SHARE = 0.25;
const SERVICES_PATH = "/apis/compute.example.dev/v1alpha1/services";

function expectExact(tally: HaTally): void {
  expect(tally).toMatchObject({
    services: HA_SERVICES,
    doubleMints: 0,
    missing: 0,
    unexpected: 0,
    wrongStatus: [],
    census: { orphans: [], duplicates: [] },
  });
  expect(tally.census.onServer).toBe(tally.census.declared);
}

function expectCompleted(run: UpRun, faulted = true): void {
  expect(run.error).toBeUndefined();
  // The fault landed while `up` ran, with Services written and not all minted yet, or it proved nothing.
  if (faulted) expect(run.landed?.written).toBeGreaterThan(0);
}

describe("the HA environment: 3 etcd members, 2 kube-apiservers behind haproxy, 2 controller replicas", () => {
  let env: HaEnvironment;
  /** The generations every Service went through, in order. */
  const generations: string[] = [];
  const kills: string[] = [];
  const upMs: Record<string, number> = {};

  beforeAll(async () => {
    const began = Date.now();
    env = await startHaEnvironment();
    report("start", {
      ms: Date.now() - began,
      kube: env.api.versions.kube,
      etcd: env.api.versions.etcd,
      processes: env.api.processes.map((p) => p.name),
    });
  });
  afterAll(async () => {
    if (env !== undefined)
      report("summary", {
        services: HA_SERVICES,
        generations: generations.length,
        revisions: HA_SERVICES * generations.length,
        kills,
        upMs,
        controllerExits: env.controllers.exits,
        // A replica that met its own revision on a retried create (AlreadyExists): not a mint twice.
        controllerRetriedCreates: env.controllers.trouble().length,
      });
    await env?.close();
  });

  it("serves through the balancer; every member and server is up, each with its log", async () => {
    expect(env.api.balancer?.url).toBe(env.api.url);
    expect(env.api.etcd).toHaveLength(3);
    expect(env.api.apiservers).toHaveLength(2);
    for (const member of env.api.etcd) expect(await etcdHealthy(member)).toBe(true);
    expect(env.api.processes.map((p) => p.log)).toEqual(
      expect.arrayContaining([expect.stringMatching(/etcd-2\.log$/), expect.stringMatching(/haproxy\.log$/)]),
    );
    expect(env.api.versions.kube).toMatch(/^v1\.3[5-7]\.\d+$/);
  });

  it("creates the fleet and changes every template without a fault: the baseline", async () => {
    const create = await upAt(env, "1");
    expectCompleted(create, false);
    generations.push("1");
    const update = await upAt(env, "2");
    expectCompleted(update, false);
    generations.push("2");
    upMs.create = create.ms;
    upMs.update = update.ms;
    const tally = await tallyFleet(env, generations);
    report("baseline", { createMs: create.ms, updateMs: update.ms, ...tallyFigures(tally) });
    expectExact(tally);
  });

  it("rides through kill -9 of a kube-apiserver during up: one revision per (template, digest)", async () => {
    const victim = env.api.apiservers[0];
    if (!victim) throw new Error("no kube-apiserver");
    const run = await upAt(env, "3", { share: SHARE, run: () => victim.kill() });
    generations.push("3");
    kills.push(victim.name);
    upMs.apiserverKilled = run.ms;
    const tally = await tallyFleet(env, generations);
    const restartMs = await restartApiserver(env, victim);
    report("kill -9 kube-apiserver", { killed: victim.name, ...run, ...tallyFigures(tally), restartMs });
    expectCompleted(run);
    expectExact(tally);
  });

  it("rides through kill -9 of etcd's leader during up; the member restarted rejoins", async () => {
    const victim = await etcdLeader(env.api.etcd);
    if (!victim) throw new Error("no etcd member leads");
    const run = await upAt(env, "4", { share: SHARE, run: () => victim.kill() });
    generations.push("4");
    kills.push(`${victim.name} (etcd leader)`);
    upMs.etcdLeaderKilled = run.ms;
    const tally = await tallyFleet(env, generations);
    const rejoinMs = await restartEtcd(env, [victim]);
    report("kill -9 etcd leader", { killed: victim.name, ...run, ...tallyFigures(tally), rejoinMs });
    expectCompleted(run);
    expectExact(tally);
    expect(await etcdHealthy(victim)).toBe(true);
  });

  it("with quorum lost, up fails in bounded time saying the API is unavailable; the watch cache answers; the next up converges", async () => {
    const raw = createRawClient({ baseUrl: env.api.url, token: env.api.token, ca: env.api.caCert });
    try {
      const before = statuses(await env.admin.services.listAll());
      const down = env.api.etcd.slice(1);
      await Promise.all(down.map((member) => member.kill()));
      kills.push(...down.map((member) => member.name));
      const { stack } = env.fleet;
      await stack.setAllConfig({
        "exampledev:requestTimeoutSeconds": { value: String(QUORUM_SETTINGS.timeoutMs / 1000) },
        "exampledev:maxRetries": { value: String(QUORUM_SETTINGS.maxRetries) },
      });
      const failed = await upAt(env, "5");
      await stack.removeAllConfig(["exampledev:requestTimeoutSeconds", "exampledev:maxRetries"]);
      upMs.quorumLost = failed.ms;
      // resourceVersion=0: kube-apiserver answers from its watch cache, without etcd. Its priority and
      // fairness may refuse a request with 429 while the requests waiting on etcd hold the seats: a client
      // sends it again, as client-go does.
      let refusals = 0;
      const cached = await vi.waitFor(
        async () => {
          const answer = await raw.call("GET", `${SERVICES_PATH}?resourceVersion=0`);
          if (answer.status !== 429) return answer;
          refusals++;
          throw new Error(`the watch cache's list was refused ${refusals} times with 429`);
        },
        { timeout: 30_000, interval: 1_000 },
      );
      const cachedServices = (cached.body as { items?: Parameters<typeof statuses>[0] }).items ?? [];
      const exitsDuring = env.controllers.exits.length;
      const recoverMs = await restartEtcd(env, down);
      await apiserversReady(env);
      // Nothing the controller wrote changed: no Service marked failed for the outage.
      const after = statuses(await env.admin.services.listAll());
      const converged = await upAt(env, "5");
      generations.push("5");
      upMs.afterQuorum = converged.ms;
      const tally = await tallyFleet(env, generations);
      report("quorum lost", {
        killed: down.map((member) => member.name),
        failedUpMs: failed.ms,
        settings: QUORUM_SETTINGS,
        deadlineMs: PROVIDER_DEADLINE_MS,
        error: failed.error
          ?.split("\n")
          .filter((line) => /error|unavailable/i.test(line))
          .slice(0, 6),
        cacheList: cached.status,
        cacheListRefusals: refusals,
        cachedServices: cachedServices.length,
        controllerExitsDuring: exitsDuring,
        recoverMs,
        convergedUpMs: converged.ms,
        ...tallyFigures(tally),
      });
      expect(failed.error).toMatch(/unavailable/i);
      expect(failed.ms).toBeLessThan(PROVIDER_DEADLINE_MS);
      expect(cached.status).toBe(200);
      expect(cachedServices).toHaveLength(HA_SERVICES);
      // No partial state: the failed run wrote nothing.
      expect(cachedServices.filter((s) => s.metadata.labels?.generation === "5")).toEqual([]);
      expect(after).toEqual(before);
      expectCompleted(converged, false);
      expectExact(tally);
    } finally {
      await raw.close();
    }
  });

  it("rides through the controller's leader and a kube-apiserver killed together", async () => {
    const leader = await env.controllers.leader(env.admin);
    const server = env.api.apiservers[1];
    if (!server) throw new Error("no second kube-apiserver");
    const run = await upAt(env, "6", {
      share: SHARE,
      run: async () => {
        leader.child.kill("SIGKILL");
        await server.kill();
      },
    });
    generations.push("6");
    kills.push("controller leader", server.name);
    upMs.leaderAndApiserverKilled = run.ms;
    const next = await env.controllers.leader(env.admin);
    const tally = await tallyFleet(env, generations);
    const restartMs = await restartApiserver(env, server);
    report("kill -9 controller leader + kube-apiserver", {
      killed: ["controller leader", server.name],
      ...run,
      ...tallyFigures(tally),
      restartMs,
    });
    expect(next).not.toBe(leader);
    expectCompleted(run);
    expectExact(tally);
  });
});
