// A child process of the watch benchmark: many watch connections to one server, on raw sockets so that the
// clients cost little CPU beside the server they measure. `read` connections read every byte and, when the
// server ends one, watch again from the last resourceVersion they saw (410 Expired: from now), as an
// informer does; `stall` connections send their request and never read. Prints `ready` once every
// connection has its answer (`refused` counts those that were not 200), and on SIGTERM one JSON line of
// counts.
import { connect, type Socket } from "node:net";

const [url, countText, mode, watchPath] = process.argv.slice(2);
if (!url || !countText || (mode !== "read" && mode !== "stall") || !watchPath) {
  console.error("usage: watch-clients <url> <count> read|stall <watch path>");
  process.exit(2);
}
const { hostname, port } = new URL(url);
const counts = { opened: 0, events: 0, endedByServer: 0, refused: 0 };

const RESOURCE_VERSION = /"resourceVersion":"(\d+)"/g;

/** The resourceVersion of the last event in `text`, if any. */
function lastVersion(text: string): string | undefined {
  let last: string | undefined;
  for (const match of text.matchAll(RESOURCE_VERSION)) last = match[1];
  return last;
}

function open(resourceVersion: string | undefined, onAnswer: () => void): void {
  const socket: Socket = connect(Number(port), hostname);
  const query = resourceVersion === undefined ? "" : `&resourceVersion=${resourceVersion}`;
  socket.write(`GET ${watchPath}?watch=true${query} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  let head = "";
  let version = resourceVersion;
  let ready = false;
  socket.on("data", (chunk: Buffer) => {
    if (!ready) {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n")) return;
      ready = true;
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
    // Events are counted by their line ends; the chunked framing adds none inside a JSON line.
    const text = chunk.toString("latin1");
    for (let at = text.indexOf("}\n"); at !== -1; at = text.indexOf("}\n", at + 2)) counts.events++;
    version = lastVersion(text) ?? version;
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    if (stopping || !ready || !head.startsWith("HTTP/1.1 200")) return;
    counts.endedByServer++;
    if (mode === "read") open(version, () => {});
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
process.on("SIGTERM", () => {
  stopping = true;
  console.log(JSON.stringify(counts));
  process.exit(0);
});
