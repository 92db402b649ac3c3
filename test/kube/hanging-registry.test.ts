// Issue 35: a registry that accepts connections and never answers holds up only the Services that name it.
// More Services on such a registry than the controller has workers, then Services that need no registry
// (pinned by digest): the latter are all live within a generous wait, on the local server (in this process)
// and on kube-apiserver (the same controller as its client), while the former say what they wait for.
import { createServer, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KINDS } from "../../sdk/schema";
import { ociService } from "../controller/fixtures";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";

const WORKERS = 2;
const HANGING = 12;
const PINNED = 30;
/** A bound on waiting, not a measure of speed: the one worker took over 60 s for 50 such Services. */
const LIVE_WAIT_MS = 45_000;

interface SilentRegistry {
  server: Server;
  port: number;
  connections: () => number;
  close(): Promise<void>;
}

/** Accepts TCP connections, reads what is sent, and never answers. */
async function silentRegistry(): Promise<SilentRegistry> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    server,
    port,
    connections: () => accepted,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const service = (name: string, spec: ReturnType<typeof ociService>) => ({
  apiVersion: KINDS.Service.apiVersion,
  kind: "Service" as const,
  metadata: { name },
  spec,
});

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(200);
  }
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

describe.each(BACKENDS)("a registry that never answers, on the %s server", (name) => {
  let backend: Backend;
  let registry: SilentRegistry;

  beforeAll(async () => {
    registry = await silentRegistry();
    backend = await startBackend(name, { workers: WORKERS });
  }, 180_000);

  afterAll(async () => {
    await backend?.close();
    await registry?.close();
  });

  it(`holds up none of ${PINNED} digest-pinned Services created after ${HANGING} Services naming it (${WORKERS} workers)`, async () => {
    const repo = `127.0.0.1:${registry.port}/team/app`;
    for (let index = 0; index < HANGING; index++) {
      await backend.client.services.create(
        service(`hangs-${index}`, ociService({ oci: { repo, tag: `v${index}` } })),
      );
    }
    // The controller is asking the registry (and will not hear back).
    await until("the controller connects to the registry", 30_000, async () =>
      registry.connections() > 0 ? true : undefined,
    );

    const started = Date.now();
    const names = Array.from({ length: PINNED }, (_, index) => `pinned-${index}`);
    await Promise.all(names.map((pinned) => backend.client.services.create(service(pinned, ociService()))));
    await until(`all ${PINNED} pinned Services live`, LIVE_WAIT_MS, async () => {
      const services = await backend.client.services.listAll();
      const live = services.filter(
        (object) => object.metadata.name.startsWith("pinned-") && object.status?.liveRevision,
      );
      return live.length === PINNED ? true : undefined;
    });
    console.log(
      `${name}: ${PINNED} pinned Services live ${Date.now() - started} ms after their creates, beside ${HANGING} Services on a silent registry (${registry.connections()} connections to it)`,
    );

    // The hanging ones say what they wait for: the host, the tag, and how long.
    const waiting = await until("a hanging Service reports its wait", 30_000, async () => {
      const object = await backend.client.services.get("hangs-0");
      const accepted = (object.status?.conditions as Condition[] | undefined)?.find(
        (condition) => condition.type === "Accepted",
      );
      return accepted?.reason === "AwaitingRegistry" ? accepted : undefined;
    });
    expect(waiting.status).toBe("Unknown");
    expect(waiting.message).toContain(`registry 127.0.0.1:${registry.port}`);
    expect(waiting.message).toContain(`tag "v0" of ${repo}`);
    expect(waiting.message).toMatch(/waited \d+ s/);
    const hanging = await backend.client.services.get("hangs-1");
    expect(hanging.status?.liveRevision).toBeUndefined();
  });
});
