// Issue 34, point 5, on both backends: what an update of a ready Service waits for. A metadata-only update
// leaves the generation the controller has judged, so it returns without the controller (here: stopped); a
// spec change waits until the controller has observed the new generation and its revision is live, so with
// the controller stopped it completes only after the controller runs again. No timed assertion: the order
// of what was observed.
import { Config } from "@pulumi/pulumi/cmd/dynamic-provider/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourceProvider } from "../../provider";
import type { ObjectProvider } from "../../provider/object-provider";
import type { ObjectInputs, ObjectOutputs } from "../../provider/state";
import type { ServiceStatus } from "../../sdk/schema/status";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { declared } from "../helpers/provider";
import { digestService, REPO } from "../provider/fixtures";

type Outputs = ObjectOutputs & { status: ServiceStatus };

describe.each(BACKENDS)("readiness of a Service's update, on the %s server", (backendName) => {
  let backend: Backend;
  let services: ObjectProvider;

  beforeAll(async () => {
    backend = await startBackend(backendName);
    services = resourceProvider("Service");
    const config = Object.fromEntries(Object.entries(backend.config).map(([key, { value }]) => [key, value]));
    await services.configure({ config: new Config(config, "readiness-tests") });
  });
  let paused = false;
  afterAll(async () => {
    // A controller stopped by a failed test starts again, so that the backend closes as it always does.
    if (paused) backend?.resumeController();
    await backend?.close();
  });

  /** The program's inputs for the Service `api`, checked as the engine checks them. */
  async function inputs(greeting: string, labels: Record<string, string>, olds: Partial<ObjectInputs> = {}) {
    const news = declared("api", digestService(REPO, greeting), {
      metadata: { name: "ready-api", labels },
      await: { timeoutSeconds: 300 },
    });
    const { inputs: checked, failures } = await services.check(olds, news);
    expect(failures ?? []).toEqual([]);
    return checked as ObjectInputs;
  }

  let state: Outputs;

  it("creates a Service and waits until its revision is live", async () => {
    const created = await services.create(await inputs("hello", { team: "a" }));
    state = created.outs as Outputs;
    expect(state.metadata.generation).toBe(1);
    expect(state.status.observedGeneration).toBe(1);
    expect(state.status.liveRevision).toBe(state.status.latestRevision);
    expect(state.status.latestRevision).toMatch(/^ready-api-[0-9a-f]{10}$/);
  });

  it("returns from a metadata-only update while no controller runs", async () => {
    await backend.pauseController();
    paused = true;
    const news = await inputs("hello", { team: "b" }, state);
    expect(await services.diff(state.metadata.name, state, news)).toMatchObject({ changes: true });
    const { outs } = await services.update(state.metadata.name, state, news);
    const updated = outs as Outputs;
    expect(updated.metadata.labels).toEqual({ team: "b" });
    expect(updated.metadata.generation).toBe(1);
    expect(updated.status.liveRevision).toBe(state.status.liveRevision);
    state = updated;
  });

  it("waits on a spec change until the controller observed the new generation and its revision is live", async () => {
    const news = await inputs("bonjour", { team: "b" }, state);
    let controllerRunning = false;
    let completedWhileStopped: boolean | undefined;
    const update = services.update(state.metadata.name, state, news).then((result) => {
      completedWhileStopped = !controllerRunning;
      return result;
    });
    // The write is stored (generation 2), and the controller has not seen it.
    await expect
      .poll(async () => (await backend.client.services.get("ready-api")).metadata.generation, {
        timeout: 30_000,
        interval: 100,
      })
      .toBe(2);
    const stored = await backend.client.services.get("ready-api");
    expect(stored.status?.observedGeneration).toBe(1);
    expect(completedWhileStopped).toBeUndefined();

    controllerRunning = true;
    backend.resumeController();
    paused = false;
    const updated = (await update).outs as Outputs;
    expect(completedWhileStopped).toBe(false);
    expect(updated.status.observedGeneration).toBe(2);
    expect(updated.status.latestRevision).not.toBe(state.status.latestRevision);
    expect(updated.status.liveRevision).toBe(updated.status.latestRevision);
  });
});
