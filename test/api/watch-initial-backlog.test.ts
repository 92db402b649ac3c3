import { execFileSync } from "node:child_process";
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

async function serverWithLargeProxies(slowClientGraceMs: number, objects = OBJECTS) {
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
  for (let i = 0; i < objects; i++) {
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

/**
 * The server's ends of these sockets, in any TCP state, counted by the kernel (`ss`): a watch the server
 * closed gracefully would linger here in FIN-WAIT-1, its FIN queued behind buffers the client never reads.
 */
function serverEndsOf(url: string, clients: readonly Socket[]): number {
  const ports = new Set(clients.map((socket) => socket.localPort));
  const lines = execFileSync("ss", ["-Htan", `( sport = :${new URL(url).port} )`], { encoding: "utf8" });
  return lines
    .split("\n")
    .filter((line) => ports.has(Number(line.trim().split(/\s+/).at(-1)?.split(":").at(-1)))).length;
}

/** The open watches by the server's own gauge (`apiserver_longrunning_requests` of `/metrics`). */
async function openWatchesGauge(url: string): Promise<number> {
  const { text } = await call(url, "GET", "/metrics");
  return text
    .split("\n")
    .filter(
      (line) => line.startsWith("apiserver_longrunning_requests{") && line.includes('resource="proxies"'),
    )
    .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
}

describe("the initial events of watches whose clients stop reading", () => {
  // Issue 48: never-reading watches on 120 Proxies of 900 kB. Each is cut (a reset: nothing queued nor in
  // the kernel's buffers keeps it) within twice the grace of its client's last read, by the server's gauge
  // and by the kernel's count of the server's ends; /healthz answers within a second throughout.
  for (const watches of [100, 200]) {
    it(`cuts every one of ${watches} stalled watches within twice the grace, whatever they hold`, async () => {
      const grace = 2_000;
      const { server } = await serverWithLargeProxies(grace, 120);
      const rssBefore = process.memoryUsage().rss;
      const stalled = await Promise.all(Array.from({ length: watches }, () => stalledWatch(server.url)));
      const openedAt = performance.now();
      // On a loaded machine the first watches may be past their grace, and cut, before the last one opens.
      const openAtFirst = await openWatchesGauge(server.url);
      expect(openAtFirst).toBeGreaterThan(0);
      expect(openAtFirst).toBeLessThanOrEqual(watches);
      let slowestHealthz = 0;
      let largestRss = rssBefore;
      let cutAfter: number | undefined;
      while (cutAfter === undefined && performance.now() - openedAt < 4 * grace) {
        const asked = performance.now();
        expect((await call(server.url, "GET", "/healthz")).status).toBe(200);
        slowestHealthz = Math.max(slowestHealthz, performance.now() - asked);
        largestRss = Math.max(largestRss, process.memoryUsage().rss);
        const open = (await openWatchesGauge(server.url)) + serverEndsOf(server.url, stalled);
        if (open === 0) cutAfter = performance.now() - openedAt;
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const mb = (bytes: number) => Math.round(bytes / 1e6);
      console.log(
        `${watches} stalled watches (${openAtFirst} open once the last opened): ` +
          `all cut ${Math.round(cutAfter ?? -1)} ms after the last opened ` +
          `(grace ${grace} ms); slowest /healthz ${Math.round(slowestHealthz)} ms; ` +
          `test process RSS ${mb(rssBefore)} MB before, ${mb(largestRss)} MB at most`,
      );
      expect(cutAfter).toBeLessThanOrEqual(2 * grace);
      expect(slowestHealthz).toBeLessThan(1_000);
      // Each watch holds at most its bound; 200 of them together far less than one copy of the store each.
      expect(largestRss - rssBefore).toBeLessThan(watches * DEFAULT_WATCH_SETTINGS.maxBufferedBytes);
      expect(openWatchCount(server.store)).toBe(0);
    }, 180_000);
  }

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
