import { connect, type Socket } from "node:net";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../server";
import { DEFAULT_WATCH_SETTINGS, openWatchCount, watchBacklog } from "../../server/routes/watch";
import { call, manifest, pathOf } from "../helpers/server";
import { openWatch } from "../helpers/watch";

// Watches that start with the stored objects (no resourceVersion) and whose clients never read, over real
// sockets against the server started in this process: the initial events count toward the same bounds as
// later events, a watch whose client takes nothing is cut whether or not new events arrive, and what the
// watches held is given back once the clients are gone. The server's own account (watchBacklog) is what is
// checked, never a time.

const LARGE = "x".repeat(900_000);
const OBJECTS = 40; // 36 MB of initial events per watch: past the 16 MiB bound
const STALLED = 30;

const servers: RunningServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await server.close();
});

async function serverWithLargeProxies(slowClientGraceMs: number) {
  let log = "";
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      log += chunk;
      done();
    },
  });
  const server = await startServer({
    port: 0,
    storage: "memory",
    logLevel: "warn",
    logStream,
    drainProxies: false,
    watch: { slowClientGraceMs },
  });
  servers.push(server);
  for (let i = 0; i < OBJECTS; i++) {
    const spec = { telemetry: { accessLogs: { json: { seed: LARGE } } } };
    const reply = await call(server.url, "POST", pathOf("Proxy"), {
      body: manifest("Proxy", `large-${i}`, spec),
    });
    expect(reply.status, reply.text).toBe(201);
  }
  return { server, log: () => log };
}

/** A watch without a resourceVersion on a raw socket that reads its answer's head, then nothing. */
async function stalledWatch(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  socket.on("error", () => {});
  let head = "";
  await new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      socket.pause();
      resolve();
    };
    socket.on("data", onData);
    socket.write(`GET ${pathOf("Proxy")}?watch=true HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  });
  expect(head.startsWith("HTTP/1.1 200")).toBe(true);
  return socket;
}

describe("the initial events of watches whose clients stop reading", () => {
  it("are bounded like later events, cut without a new event, and given back once the clients leave", async () => {
    const { server, log } = await serverWithLargeProxies(300);
    const stalled = await Promise.all(Array.from({ length: STALLED }, () => stalledWatch(server.url)));
    expect(openWatchCount(server.store)).toBe(STALLED);

    // No event arrives: every watch is cut for its stalled client alone. Meanwhile what each holds for its
    // client (its queue, Node's buffers in front of the socket) stays within the bounds.
    let largest = { bytes: 0, events: 0 };
    await expect
      .poll(
        () => {
          const backlog = watchBacklog(server.store);
          if (backlog.streams > 0) {
            largest = {
              bytes: Math.max(largest.bytes, backlog.bytes / backlog.streams),
              events: Math.max(largest.events, backlog.events / backlog.streams),
            };
          }
          return log().match(/watch closed: the client fell behind/g)?.length ?? 0;
        },
        { timeout: 60_000, interval: 50 },
      )
      .toBe(STALLED);
    expect(largest.bytes).toBeLessThanOrEqual(DEFAULT_WATCH_SETTINGS.maxBufferedBytes);
    expect(largest.events).toBeLessThanOrEqual(DEFAULT_WATCH_SETTINGS.maxBufferedEvents);
    const cut = log()
      .split("\n")
      .filter((line) => line.includes("watch closed: the client fell behind"))
      .map((line) => JSON.parse(line));
    for (const line of cut)
      expect(line.watch).toMatchObject({ why: "stalled", initialEventsLeft: expect.any(Number) });
    // Each had initial events left that it never sent.
    expect(cut.every((line) => line.watch.initialEventsLeft > 0)).toBe(true);

    // Cut: nothing is held for them any more, even before their clients go.
    await expect.poll(() => openWatchCount(server.store), { timeout: 30_000 }).toBe(0);
    expect(watchBacklog(server.store)).toEqual({ streams: 0, bytes: 0, events: 0, initialEvents: 0 });
    for (const socket of stalled) socket.destroy();
    expect((await call(server.url, "GET", "/healthz")).status).toBe(200);
  }, 120_000);

  it("frees a stalled watch's backlog at once when its client leaves before the cut", async () => {
    const { server } = await serverWithLargeProxies(3_600_000);
    const stalled = await Promise.all(Array.from({ length: 5 }, () => stalledWatch(server.url)));
    await expect.poll(() => watchBacklog(server.store).streams).toBe(5);
    expect(watchBacklog(server.store).initialEvents).toBeGreaterThan(0);
    for (const socket of stalled) socket.destroy();
    await expect
      .poll(() => watchBacklog(server.store), { timeout: 30_000 })
      .toEqual({
        streams: 0,
        bytes: 0,
        events: 0,
        initialEvents: 0,
      });
  }, 120_000);

  it("sends every initial event to a client that reads them, past the byte bound, without cutting it", async () => {
    const { server, log } = await serverWithLargeProxies(300);
    const watch = await openWatch(server.url, `${pathOf("Proxy")}?watch=true`);
    await expect.poll(() => watch.events.length, { timeout: 60_000 }).toBe(OBJECTS);
    expect(watch.events.every((event) => event.type === "ADDED")).toBe(true);
    expect(log()).not.toContain("watch closed");
    watch.close();
  }, 120_000);
});
