// Issue 47, on both backends: Kubernetes Events the controller records (controller/recorder.ts) and the
// tools that read them. `kubectl events --for services.compute.example.dev/<name>` lists the mint and the
// promotion; a Service whose build fails again and again leaves one Event counted in its series, not one
// per failure; a Proxy's drain is recorded. The local server serves the events kinds itself
// (server/routes/events.ts), kube-apiserver as it always does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPORTING_CONTROLLER } from "../../controller/recorder";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { TestRepo } from "../helpers/git";
import { manifest } from "../helpers/server";
import { kubectlFor, type Run } from "../helpers/tools";

const DIGEST = `sha256:${"0123456789abcdef".repeat(4)}`;
const TEMPLATE = { spec: { runtime: { compatibilityDate: "2024-09-01" } } };

interface CoreEvent {
  reason: string;
  message?: string;
  type: string;
  count?: number;
  series?: { count: number };
  involvedObject: { kind: string; name: string };
  reportingComponent?: string;
}

describe.each(BACKENDS)("Events of the controller, on the %s server", (backendName) => {
  let backend: Backend;
  let kubectl: (...args: string[]) => Promise<Run>;

  beforeAll(async () => {
    // Git polled every 300 ms, build commands on: every commit pushed builds, and fails.
    backend = await startBackend(backendName, {
      git: { pollIntervalMs: 300, buildCommands: true },
      proxyDeletionGraceMs: 500,
    });
    kubectl = kubectlFor(backend);
  }, 300_000);
  afterAll(async () => {
    await backend?.close();
  });

  /** The core v1 Events about `name` in `default`, as kubectl describe reads them. */
  async function eventsOf(kind: string, name: string): Promise<CoreEvent[]> {
    const selector = `involvedObject.kind=${kind},involvedObject.name=${name}`;
    const reply = await backend.call("GET", `/api/v1/namespaces/default/events?fieldSelector=${selector}`);
    expect(reply.status, reply.text).toBe(200);
    return (JSON.parse(reply.text) as { items: CoreEvent[] }).items;
  }

  it("kubectl events --for a Service lists its mint and its promotion", async () => {
    await backend.client.services.create(
      manifest("Service", "evented", {
        source: { oci: { repo: "registry.example.dev/team/app", digest: DIGEST } },
        template: TEMPLATE,
      }) as never,
    );
    await expect
      .poll(async () => (await eventsOf("Service", "evented")).map((event) => event.reason).sort(), {
        timeout: 30_000,
      })
      .toEqual(["RevisionMinted", "RevisionPromoted"]);
    const [event] = await eventsOf("Service", "evented");
    expect(event?.reportingComponent).toBe(REPORTING_CONTROLLER);
    const run = await kubectl("events", "--for", "services.compute.example.dev/evented");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/RevisionMinted/);
    expect(run.stdout).toMatch(/RevisionPromoted/);
    console.log(`[${backendName}] kubectl events --for services.compute.example.dev/evented:\n${run.stdout}`);
  });

  it("a loop of failing builds leaves one Event, its series counting the failures", async () => {
    const repo = TestRepo.create("events-loop");
    try {
      repo.commit({ "index.js": "0" });
      await backend.client.services.create(
        manifest("Service", "fails-often", {
          source: {
            git: {
              url: repo.url,
              triggers: {},
              build: {
                output: { repo: "registry.example.dev/team/built" },
                command: ["sh", "-c", "echo 'error: no' >&2; exit 3"],
              },
            },
          },
          template: TEMPLATE,
        }) as never,
      );
      const failures = async () =>
        (await eventsOf("Service", "fails-often")).filter((event) => event.reason === "BuildFailed");
      await expect.poll(failures, { timeout: 30_000 }).toHaveLength(1);
      // Four more commits, each built and failed; the recorder patches the series at most every 10 s.
      for (let commit = 1; commit <= 4; commit++) {
        repo.commit({ "index.js": String(commit) });
        await expect
          .poll(async () => (await backend.client.services.get("fails-often")).status?.lastBuild?.commit, {
            timeout: 30_000,
          })
          .toBe(repo.head());
      }
      await expect
        .poll(async () => (await failures()).map((event) => event.series?.count ?? 1), {
          timeout: 30_000,
          interval: 1_000,
        })
        .toEqual([5]);
      const all = await eventsOf("Service", "fails-often");
      const counted = all.map((event) => `${event.reason} x${event.series?.count ?? 1}`);
      console.log(`[${backendName}] Events of a Service whose 5 builds failed: ${counted.join(", ")}`);
      // One object per reason: the failures are counted, not repeated.
      expect(new Set(all.map((event) => event.reason)).size).toBe(all.length);
    } finally {
      repo.remove();
    }
  }, 180_000);

  it("records a Proxy's drain", async () => {
    await backend.client.proxies.create(manifest("Proxy", "evented-edge", {}) as never);
    await expect.poll(async () => (await backend.client.proxies.get("evented-edge")).status).toBeDefined();
    await backend.client.proxies.delete("evented-edge");
    await expect
      .poll(async () => (await eventsOf("Proxy", "evented-edge")).map((event) => event.reason).sort(), {
        timeout: 30_000,
      })
      .toEqual(["Drained", "Draining"]);
  });
});
