import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LEASE_NAME } from "../../controller/leader-election";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { type Client, createClient, type Lease } from "../../sdk/client";
import { SECRETS_NAMESPACE } from "../../sdk/schema";
import { VALID_SPECS } from "../api/fixtures";
import { type ControllerProcess, pidOf, spawnController, until } from "../helpers/controller-process";

/**
 * Two replicas of `exampledev-controller` against kube-apiserver, as the controller's service account
 * (deploy/identities.ts's RBAC): one leads, the other waits; the leader is killed (SIGKILL, no release)
 * partway through minting for 50 Services, and the other takes the Lease over once it expires and mints the
 * rest. Every Service ends with exactly one revision: none minted twice, none lost.
 */

const SERVICES = 50;
/** The leader is killed once it minted this many: partway through. */
const KILL_AFTER = 10;
/** The spec's "within about 15 s" (lease duration, then the next try), with room for a loaded machine. */
const TAKEOVER_BOUND_MS = 25_000;

// Two replicas on one machine: no health endpoint, so no port to share (it defaults to 8081).
const spawnReplica = (kubeconfig: string) => spawnController(kubeconfig, ["--health-port", "0"]);

const isGone = (pid: number | undefined) => {
  try {
    process.kill(pid ?? 0, 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === "ESRCH";
  }
};

describe("exampledev-controller replicas on kube-apiserver", () => {
  let api: KubeApi;
  let admin: Client;
  const replicas: ControllerProcess[] = [];

  beforeAll(async () => {
    api = await startKubeApi();
    admin = createClient({ baseUrl: api.url, token: api.token, ca: api.caCert });
  });
  afterAll(async () => {
    for (const { child } of replicas)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await admin?.close();
    await api?.close();
  });

  const lease = () => admin.leases.get(SECRETS_NAMESPACE, DEFAULT_LEASE_NAME);
  const createServices = async () => {
    for (let index = 0; index < SERVICES; index++)
      await admin.services.create({ metadata: { name: `app-${index}` }, spec: VALID_SPECS.Service } as never);
  };
  const revisionCount = async () => (await admin.serviceRevisions.list()).items.length;

  it("fails over to the waiting replica within the lease's duration and mints every revision once", async () => {
    replicas.push(spawnReplica(api.controllerKubeconfig), spawnReplica(api.controllerKubeconfig));
    const first = await until(
      "a replica to take the lease",
      async () => (await lease())?.spec.holderIdentity || undefined,
    );
    const leader = replicas.find(({ child }) => child.pid === pidOf(first));
    const standby = replicas.find((replica) => replica !== leader);
    if (!leader || !standby) throw new Error(`no replica has the pid of the lease's holder ${first}`);

    // The Services are created while the leader mints, and it is killed in the middle of that.
    const created = createServices();
    await until("the leader to mint", async () => ((await revisionCount()) >= KILL_AFTER ? true : undefined));
    const killedAt = Date.now();
    leader.child.kill("SIGKILL");
    await created;
    const mintedBeforeKill = await revisionCount();
    expect(mintedBeforeKill).toBeLessThan(SERVICES);
    expect(standby.log()).not.toContain("minted revision");

    const taken: Lease = await until("the standby to take the lease", async () => {
      const current = await lease();
      return current?.spec.holderIdentity && current.spec.holderIdentity !== first ? current : undefined;
    });
    const takeoverMs = Date.parse(taken.spec.acquireTime ?? "") - killedAt;
    console.log(
      `takeover: the standby acquired the lease ${(takeoverMs / 1000).toFixed(1)} s after the leader was killed (${mintedBeforeKill} of ${SERVICES} Services minted before the kill)`,
    );
    expect(pidOf(taken.spec.holderIdentity ?? "")).toBe(standby.child.pid);
    expect(taken.spec.leaseTransitions).toBe(1);
    expect(takeoverMs).toBeLessThan(TAKEOVER_BOUND_MS);
    // Not before the lease expired: 15 s after the last renewal, which was one 2 s period (plus the time a
    // renewal takes) before the kill at most.
    expect(takeoverMs).toBeGreaterThan(10_000);

    const services = await until("every Service to have its latest revision", async () => {
      const { items } = await admin.services.list();
      return items.length === SERVICES && items.every((service) => service.status?.latestRevision)
        ? items
        : undefined;
    });
    const revisions = (await admin.serviceRevisions.list()).items;
    expect(revisions).toHaveLength(SERVICES);
    for (const service of services) {
      const owned = revisions.filter((revision) =>
        revision.metadata.ownerReferences?.some((owner) => owner.uid === service.metadata.uid),
      );
      expect(owned.map((revision) => revision.metadata.name)).toEqual([service.status?.latestRevision]);
    }
    // The new leader found the old one's revisions in its first list: it never tried to mint one again. (Two
    // replicas started together may both create the lease, and one gets 409: the lease's conflict, not a mint's.)
    const syncLog = standby
      .log()
      .split("\n")
      .filter((line) => !line.includes('"msg":"lease write failed"'));
    expect(syncLog.join("\n")).not.toMatch(/AlreadyExists|sync failed|sync will be retried/);

    standby.child.kill("SIGTERM");
    expect(await standby.exited).toEqual({ code: 0, signal: null });
    expect(await leader.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(replicas.every(({ child }) => isGone(child.pid))).toBe(true);
    // A replica that stops releases the lease: a successor need not wait for it to expire.
    expect((await lease())?.spec.holderIdentity).toBe("");
  });

  it("exits with code 1 when its lease is taken by another holder, as client-go's controllers do", async () => {
    const replica = spawnReplica(api.controllerKubeconfig);
    replicas.push(replica);
    const holder = await until("the replica to lead", async () => {
      const current = await lease();
      return pidOf(current?.spec.holderIdentity ?? "") === replica.child.pid ? current : undefined;
    });
    // Another holder wrote the lease (as after a partition the replica did not notice): it cannot renew.
    await admin.leases.replace({ ...holder, spec: { ...holder.spec, holderIdentity: "elsewhere_1_0" } });
    expect(await replica.exited).toEqual({ code: 1, signal: null });
    expect(replica.log()).toContain("lost the lease: exiting");
    expect(isGone(replica.child.pid)).toBe(true);
  });
});
