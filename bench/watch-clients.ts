// A child process of the watch benchmark: many watch connections to one server, on raw sockets so that the
// clients cost little CPU beside the server they measure. `read` connections read every byte and, when the
// server ends one, watch again from the last resourceVersion they saw (410 Expired: from now), as an
// informer does; `stall` connections send their request and never read. Prints `ready` once every
// connection has its answer (`refused` counts those that were not 200), one JSON line of counts on SIGUSR2,
// and one more on SIGTERM. An https URL is reached over TLS trusting BENCH_WATCH_CA (PEM), with
// BENCH_WATCH_TOKEN as the bearer token, as kube-apiserver wants.
import { connect, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";

const [url, countText, mode, watchPath] = process.argv.slice(2);
if (!url || !countText || (mode !== "read" && mode !== "stall") || !watchPath) {
  console.error("usage: watch-clients <url> <count> read|stall <watch path>");
  process.exit(2);
}
const { hostname, port, protocol } = new URL(url);
const ca = process.env.BENCH_WATCH_CA;
const token = process.env.BENCH_WATCH_TOKEN;
const authorization = token === undefined ? "" : `Authorization: Bearer ${token}\r\n`;
const LINE_END = Buffer.from("}\n");
const counts = { opened: 0, events: 0, endedByServer: 0, refused: 0 };

const RETRY_AFTER_MS = 1_000;
const RESOURCE_VERSION = /"resourceVersion":"(\d+)"/;

/** The resourceVersion of the last whole event in `text`, if any (read only when a watch is resumed). */
function lastVersion(text: string): string | undefined {
  const end = text.lastIndexOf("}\n");
  if (end === -1) return undefined;
  const start = text.lastIndexOf('{"type":', end);
  return RESOURCE_VERSION.exec(text.slice(start, end))?.[1];
}

function open(resourceVersion: string | undefined, onAnswer: () => void): void {
  const socket: Socket =
    protocol === "https:"
      ? connectTls({ port: Number(port), host: hostname, ...(ca !== undefined && { ca }) })
      : connect(Number(port), hostname);
  const query = resourceVersion === undefined ? "" : `&resourceVersion=${resourceVersion}`;
  socket.write(`GET ${watchPath}?watch=true${query} HTTP/1.1\r\nHost: ${hostname}\r\n${authorization}\r\n`);
  let head = "";
  let tail: Buffer | undefined;
  let ready = false;
  socket.on("data", (chunk: Buffer) => {
    if (!ready) {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n")) return;
      ready = true;
      if (head.startsWith("HTTP/1.1 429")) {
        // kube-apiserver's answer while a new kind's watch cache fills: asked again after its Retry-After.
        socket.destroy();
        setTimeout(() => open(resourceVersion, onAnswer), RETRY_AFTER_MS);
        return;
      }
      onAnswer();
      if (!head.startsWith("HTTP/1.1 200")) {
        counts.refused++;
        socket.destroy();
        return;
      }
      counts.opened++;
      if (mode === "stall") socket.pause();
      return;
    }
    // Events are counted by their line ends (the chunked framing adds none inside a JSON line); the text
    // is kept only for the resourceVersion a resumed watch starts from, and read only then.
    for (let at = chunk.indexOf(LINE_END); at !== -1; at = chunk.indexOf(LINE_END, at + 2)) counts.events++;
    tail = chunk;
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    if (stopping || !ready || !head.startsWith("HTTP/1.1 200")) return;
    counts.endedByServer++;
    if (mode === "read") open((tail && lastVersion(tail.toString("latin1"))) ?? resourceVersion, () => {});
  });
}

let stopping = false;
const total = Number(countText);
let answered = 0;
for (let i = 0; i < total; i++) {
  open(undefined, () => {
    if (++answered === total) console.log("ready");
  });
}
// Alive until told to stop, even once the server has closed every connection.
const keepAlive = setInterval(() => {}, 60_000);
process.on("SIGUSR2", () => console.log(JSON.stringify(counts)));
process.on("SIGTERM", () => {
  clearInterval(keepAlive);
  stopping = true;
  console.log(JSON.stringify(counts));
  process.exit(0);
});
