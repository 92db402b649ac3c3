import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApiObject } from "../../sdk/client/types";
import { EventLines } from "../../server/routes/watch/lines";
import { call, manifest, pathOf } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";
import { type OpenWatch, openWatch } from "../helpers/watch";

// Watches at scale, against the server as a process: watches that stop reading are ended and cut off
// (their memory with them), the client resumes from its last resourceVersion without a gap, the number of
// open watches is bounded, and one event's line is made once for every watch that sends it.

const sockets: Socket[] = [];
const watches: OpenWatch[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const watch of watches.splice(0)) watch.close();
});

interface StalledWatch {
  socket: Socket;
  /** The complete event lines received so far (a line cut by the end of the connection is left out). */
  lines: () => { type: string; object: ApiObject }[];
  closed: Promise<void>;
}

/** A watch on a raw socket that sends its request and reads nothing until its socket is resumed. */
async function stalledWatch(url: string): Promise<StalledWatch> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("latin1");
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.write(`GET ${pathOf("Proxy")}?watch=true HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  await expect.poll(() => received.includes("\r\n\r\n"), { timeout: 10_000 }).toBe(true);
  expect(received.startsWith("HTTP/1.1 200")).toBe(true);
  socket.pause();
  return { socket, lines: () => completeLines(dechunk(received)), closed };
}

/** The body of a chunked HTTP/1.1 response, as far as its chunks arrived whole. */
function dechunk(raw: string): string {
  let at = raw.indexOf("\r\n\r\n") + 4;
  let body = "";
  for (;;) {
    const sizeEnd = raw.indexOf("\r\n", at);
    if (sizeEnd === -1) return body;
    const size = Number.parseInt(raw.slice(at, sizeEnd), 16);
    if (size === 0 || raw.length < sizeEnd + 2 + size) return body;
    body += raw.slice(sizeEnd + 2, sizeEnd + 2 + size);
    at = sizeEnd + 2 + size + 2;
  }
}

function completeLines(body: string): { type: string; object: ApiObject }[] {
  return body
    .split("\n")
    .slice(0, -1)
    .map((line) => JSON.parse(line));
}

const LARGE = "x".repeat(900_000);

async function createLarge(url: string, name: string): Promise<void> {
  const spec = { telemetry: { accessLogs: { json: { seed: LARGE } } } };
  const reply = await call(url, "POST", pathOf("Proxy"), { body: manifest("Proxy", name, spec) });
  expect(reply.status, reply.text).toBe(201);
}

describe("watch fan-out", () => {
  it("ends watches that stop reading, cuts them off after a grace, and logs each", async () => {
    const server = spawnServer();
    const url = await server.url;
    const stalled = await Promise.all(Array.from({ length: 4 }, () => stalledWatch(url)));
    // 16 MiB is the default bound of what waits for one watch; 30 objects of 900 kB exceed it, past the
    // few MB the kernel's socket buffers take (a client that does not read does not grow its own).
    for (let i = 0; i < 30; i++) await createLarge(url, `large-${i}`);

    await expect
      .poll(() => server.stdout().match(/watch closed: the client fell behind/g)?.length ?? 0, {
        timeout: 20_000,
      })
      .toBe(4);
    const line = server
      .stdout()
      .split("\n")
      .find((text) => text.includes("watch closed: the client fell behind"));
    expect(JSON.parse(line ?? "{}")).toMatchObject({
      level: 40,
      watch: { url: `${pathOf("Proxy")}?watch=true`, queuedEvents: expect.any(Number) },
      behindMs: expect.any(Number),
    });
    // The server still answers, and so do new watches.
    expect((await call(url, "GET", "/healthz")).status).toBe(200);
    const fresh = await openWatch(url, `${pathOf("Proxy")}?watch=true&resourceVersion=0`);
    watches.push(fresh);
    expect(fresh.status).toBe(200);
    // Cut off: once the client reads again, it gets what the kernel held, then the connection closes.
    for (const { socket, closed } of stalled) {
      socket.resume();
      await closed;
    }
  }, 90_000);

  it("lets a client that fell behind resume from its last resourceVersion with no event lost", async () => {
    const server = spawnServer();
    const url = await server.url;
    const stalled = await stalledWatch(url);
    const names = Array.from({ length: 30 }, (_, i) => `large-${i}`);
    for (const name of names) await createLarge(url, name);
    await expect
      .poll(() => server.stdout().includes("watch closed: the client fell behind"), { timeout: 20_000 })
      .toBe(true);

    // What the client reads now is what reached it before the cut: whole events, in order, then the end.
    stalled.socket.resume();
    await stalled.closed;
    const before = stalled.lines().filter((line) => line.type === "ADDED");
    expect(before.length).toBeGreaterThan(0);
    const last = before.at(-1)?.object.metadata.resourceVersion;
    const resumed = await openWatch(url, `${pathOf("Proxy")}?watch=true&resourceVersion=${last}`);
    watches.push(resumed);
    await resumed.next((event) => event.object.metadata.name === names.at(-1), { timeoutMs: 20_000 });
    const after = resumed.events.filter((event) => event.type === "ADDED");
    expect([...before, ...after].map((event) => event.object.metadata.name)).toEqual(names);
  }, 90_000);

  it("stops on SIGTERM while a watch that does not read holds more than its socket takes", async () => {
    const server = spawnServer();
    const url = await server.url;
    await stalledWatch(url);
    // About 7 MB: more than the kernel's socket buffers take, less than the watch's own bound.
    for (let i = 0; i < 8; i++) await createLarge(url, `large-${i}`);
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 60_000);

  it("refuses watches past --max-watches with 429 and Retry-After, and takes one again when one ends", async () => {
    const server = spawnServer(["--max-watches", "3"]);
    const url = await server.url;
    const open = await Promise.all(
      Array.from({ length: 3 }, () => openWatch(url, `${pathOf("Proxy")}?watch=true`)),
    );
    watches.push(...open);
    expect(open.map((watch) => watch.status)).toEqual([200, 200, 200]);

    const refused = await openWatch(url, `${pathOf("Proxy")}?watch=true`);
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(await refused.body()).toMatchObject({
      kind: "Status",
      reason: "TooManyRequests",
      code: 429,
      details: { retryAfterSeconds: 1 },
    });
    expect((await call(url, "GET", pathOf("Proxy"))).status).toBe(200);

    open[0]?.close();
    await expect
      .poll(async () => {
        const again = await openWatch(url, `${pathOf("Proxy")}?watch=true`);
        watches.push(again);
        return again.status;
      })
      .toBe(200);
  }, 60_000);

  it("refuses a --max-watches that is not a positive whole number", async () => {
    const server = spawnServer(["--max-watches", "0"]);
    await expect(server.url).rejects.toThrow(/--max-watches: "0" is not a positive whole number/);
  }, 60_000);

  it("delivers the same bytes of each event to every watch", async () => {
    const server = spawnServer();
    const url = await server.url;
    const many = await Promise.all(
      Array.from({ length: 50 }, () => openWatch(url, `${pathOf("Proxy")}?watch=true`)),
    );
    watches.push(...many);
    for (let i = 0; i < 10; i++) {
      const reply = await call(url, "POST", pathOf("Proxy"), { body: manifest("Proxy", `p-${i}`, {}) });
      expect(reply.status).toBe(201);
    }
    // Each Proxy is added, then modified once by the server's controller (its readiness): 20 events in all.
    await Promise.all(
      many.map((watch) =>
        vi.waitFor(() => expect(watch.events.length).toBeGreaterThanOrEqual(20), { timeout: 30_000 }),
      ),
    );
    const texts = new Set(many.map((watch) => watch.text()));
    expect(texts.size).toBe(1);
    const added = many[0]?.events.filter((event) => event.type === "ADDED");
    expect(added?.map((event) => event.object.metadata.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `p-${i}`),
    );
  }, 60_000);
});

describe("EventLines", () => {
  it("makes an object's line once per event type, whichever watch sends it", () => {
    const lines = new EventLines();
    const object = {
      apiVersion: "core.example.dev/v1alpha2",
      kind: "Proxy",
      metadata: { name: "p", resourceVersion: "7" },
      spec: {},
    } as unknown as ApiObject;
    const added = lines.encode("Proxy", { type: "ADDED", object }, undefined);
    expect(lines.encode("Proxy", { type: "ADDED", object }, undefined)).toBe(added);
    const modified = lines.encode("Proxy", { type: "MODIFIED", object }, undefined);
    expect(JSON.parse(modified.toString())).toEqual({ type: "MODIFIED", object });
    expect(JSON.parse(added.toString())).toEqual({ type: "ADDED", object });
  });
});
