// Talking to a real server about Services: writes through HTTP, and bounded waits for the controller.
import type { ServiceSpecInput } from "../../sdk/schema";
import { type Json, manifest, pathOf, type TestServer } from "../helpers/server";
import type { StatusView } from "./fixtures";

const WAIT_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 20;

/** Polls `probe` until it returns a value other than undefined; fails after a bound, naming `what`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_TIMEOUT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_TIMEOUT_MS} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

export class ServiceApi {
  private barriers = 0;

  /** Only `call` is used: a server in this process, or one started as a process (`processApi`). */
  constructor(readonly server: Pick<TestServer, "call">) {}

  async create(name: string, spec: ServiceSpecInput, metadata: Record<string, unknown> = {}): Promise<Json> {
    return this.expectOk(
      await this.server.call("POST", pathOf("Service"), { body: manifest("Service", name, spec, metadata) }),
    );
  }

  /** A merge patch of the Service (spec and/or metadata). */
  async patch(name: string, patch: Record<string, unknown>): Promise<Json> {
    const reply = await this.server.call("PATCH", pathOf("Service", name), {
      body: patch,
      contentType: "application/merge-patch+json",
    });
    return this.expectOk(reply);
  }

  async get(name: string): Promise<Json> {
    return this.expectOk(await this.server.call("GET", pathOf("Service", name)));
  }

  async delete(name: string): Promise<void> {
    this.expectOk(await this.server.call("DELETE", pathOf("Service", name)));
  }

  /** The ServiceRevisions labelled with the Service, by name. */
  async revisions(service: string): Promise<Json[]> {
    const selector = encodeURIComponent(`compute.example.dev/service=${service}`);
    const reply = await this.server.call("GET", `${pathOf("ServiceRevision")}?labelSelector=${selector}`);
    return this.expectOk(reply).items;
  }

  async revision(name: string): Promise<Json> {
    return this.expectOk(await this.server.call("GET", pathOf("ServiceRevision", name)));
  }

  /** Waits until the controller has reported on the Service's current generation, and returns its status. */
  async observed(name: string): Promise<StatusView> {
    return eventually(`the status of Service ${name} to observe its generation`, async () => {
      const service = await this.get(name);
      return service.status?.observedGeneration === service.metadata.generation ? service.status : undefined;
    });
  }

  /** Waits until the Service's condition of `type` has `reason`, and returns the status. */
  async reason(name: string, type: string, reason: string): Promise<StatusView> {
    return eventually(`condition ${type} of Service ${name} to have reason ${reason}`, async () => {
      const service = await this.get(name);
      const status = service.status as StatusView | undefined;
      const current = status?.observedGeneration === service.metadata.generation;
      return current && status?.conditions.some((c) => c.type === type && c.reason === reason)
        ? status
        : undefined;
    });
  }

  /**
   * Waits until the controller has handled the writes made before the call: its one worker takes Service
   * names in order, so once a Service created now has status, every name queued before it was synced.
   * (A name whose sync was already running when written again is queued again after it: wait for the
   * earlier state first, as the tests do.)
   */
  async caughtUp(): Promise<void> {
    const barrier = `barrier-${++this.barriers}`;
    await this.create(barrier, {
      source: {
        git: {
          url: "https://git.example.dev/barrier.git",
          build: { output: { repo: "r.example.dev/b" } },
          triggers: {},
        },
      },
      template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
    });
    await this.observed(barrier);
    await this.delete(barrier);
  }

  private expectOk(reply: { status: number; body: Json; text: string }): Json {
    if (reply.status >= 300) throw new Error(`HTTP ${reply.status}: ${reply.text}`);
    return reply.body;
  }
}
