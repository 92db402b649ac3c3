// Stalled initial watches against the local server (issue 36, point 4): the server as a process of its own,
// `count` Proxies of `size` bytes stored, then `watches` raw-socket watches without a resourceVersion that
// send their request and never read. Prints one JSON line: the server's RSS before, its peak (VmHWM) while
// the watches stall, how many watches the server cut ("watch closed: the client fell behind" in its log),
// the slowest /healthz meanwhile, and its RSS `afterMs` after the clients left.
//
//   node -r ts-node/register bench/stalled-watches.ts [watches=100] [count=120] [size=900000] [settleMs=15000]
//
// No figure is asserted: rerun it before and after a change and compare.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import path from "node:path";

const [watches = 100, count = 120, size = 900_000, settleMs = 15_000, afterMs = 30_000] = process.argv
  .slice(2)
  .map(Number);
const REPO = path.resolve(__dirname, "..");
const PROXIES = "/apis/core.example.dev/v1alpha2/proxies";

function status(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((text) => text.startsWith(`${field}:`));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
}

async function main(): Promise<void> {
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register", "server/main.ts", "--port", "0", "--memory", "--log-level", "warn"],
    {
      cwd: REPO,
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let stdout = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`server exited ${code}`)));
  });
  const pid = child.pid as number;
  try {
    const seed = "x".repeat(size);
    for (let i = 0; i < count; i++) {
      const body = {
        apiVersion: "core.example.dev/v1alpha2",
        kind: "Proxy",
        metadata: { name: `large-${i}` },
        spec: { telemetry: { accessLogs: { json: { seed } } } },
      };
      const reply = await fetch(`${url}${PROXIES}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (reply.status !== 201) throw new Error(`create ${i}: ${reply.status} ${await reply.text()}`);
    }
    const rssBefore = status(pid, "VmRSS");
    const { hostname, port } = new URL(url);
    const sockets: Socket[] = [];
    await Promise.all(
      Array.from(
        { length: watches },
        () =>
          new Promise<void>((resolve, reject) => {
            const socket = connect(Number(port), hostname);
            sockets.push(socket);
            let head = "";
            const onData = (chunk: Buffer) => {
              head += chunk.toString("latin1");
              if (!head.includes("\r\n\r\n")) return;
              socket.off("data", onData);
              socket.pause();
              if (!head.startsWith("HTTP/1.1 200")) reject(new Error(head.slice(0, 200)));
              else resolve();
            };
            socket.on("data", onData);
            socket.on("error", () => {});
            socket.write(`GET ${PROXIES}?watch=true HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
          }),
      ),
    );
    let slowestHealthzMs = 0;
    const until = Date.now() + settleMs;
    while (Date.now() < until) {
      const started = performance.now();
      await fetch(`${url}/healthz`).then((reply) => reply.text());
      slowestHealthzMs = Math.max(slowestHealthzMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const peakMb = status(pid, "VmHWM");
    const rssStalledMb = status(pid, "VmRSS");
    const cut = stdout.match(/watch closed: the client fell behind/g)?.length ?? 0;
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    console.log(
      JSON.stringify({
        watches,
        objects: count,
        objectBytes: size,
        rssBeforeMb: rssBefore,
        rssStalledMb,
        peakMb,
        watchesCut: cut,
        slowestHealthzMs: Math.round(slowestHealthzMs),
        [`rssAfter${afterMs / 1000}sMb`]: status(pid, "VmRSS"),
      }),
    );
  } finally {
    child.kill("SIGKILL");
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
