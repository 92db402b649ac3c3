// A child process of the watch benchmark: many watch connections to one server, on raw sockets so that the
// clients cost little CPU beside the server they measure. `read` connections read every byte and, when the
// server ends one, watch again from the last resourceVersion they saw, as an informer does; `stall`
// connections send their request and never read. Prints `ready` once every connection has its answer
// (`refused` counts those that were not 200), one JSON line of counts on SIGUSR2, and one more on SIGTERM.
// An https URL is reached over TLS trusting BENCH_WATCH_CA (PEM), with BENCH_WATCH_TOKEN as the bearer
// token, as kube-apiserver wants. A resourceVersion as the fifth argument is where every first watch starts
// (without it, the server's "now", and a server may then send the objects it holds as ADDED events).
//
// A watch ends when the server ends its answer: the chunked body's last chunk, which a server that keeps
// connections alive sends without closing the connection (kube-apiserver's Go server keeps it open for 90 s,
// its IdleTimeout). So the body is decoded here and the end of the answer is the end of the watch; each
// request also says `Connection: close`. An ERROR event ends a watch too: 410 Expired (the version to resume
// from is gone from the server's window) is counted as `expired` and that watch stops, since any resumption
// would lose events; another ERROR event (such as kube-apiserver's 504 "Too large resource version", when its
// watch cache is behind the version asked for) is counted in `errors` and the watch asked again a second
// later from where it was. Neither is counted as an event.
import { connect, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";

const [url, countText, mode, watchPath, startVersion] = process.argv.slice(2);
if (!url || !countText || (mode !== "read" && mode !== "stall") || !watchPath) {
  console.error("usage: watch-clients <url> <count> read|stall <watch path> [<resourceVersion>]");
  process.exit(2);
}
const { hostname, port, protocol } = new URL(url);
const ca = process.env.BENCH_WATCH_CA;
const token = process.env.BENCH_WATCH_TOKEN;
const authorization = token === undefined ? "" : `Authorization: Bearer ${token}\r\n`;
const counts = { opened: 0, events: 0, endedByServer: 0, refused: 0, expired: 0, errors: 0 };

const RETRY_AFTER_MS = 1_000;
const NEWLINE = 0x0a;
const HEAD_END = "\r\n\r\n";

/** What the last whole event line says about how to go on: its version, or that the watch failed. */
function lastEvent(line: Buffer | undefined): { version?: string; error?: number } {
  if (line === undefined || line.length === 0) return {};
  try {
    const event = JSON.parse(line.toString("utf8")) as {
      type?: string;
      object?: { code?: number; metadata?: { resourceVersion?: string } };
    };
    if (event.type === "ERROR") return { error: event.object?.code ?? 0 };
    const version = event.object?.metadata?.resourceVersion;
    return version === undefined ? {} : { version };
  } catch {
    return {};
  }
}

/** The body of a chunked answer, decoded as it arrives: data to `onData`, the last chunk to `onEnd`. */
function chunkedDecoder(onData: (data: Buffer) => void, onEnd: () => void): (bytes: Buffer) => void {
  let sizeLine = "";
  let remaining = 0;
  /** The CRLF after a chunk's data, still to skip. */
  let trailing = 0;
  let ended = false;
  return (bytes) => {
    let at = 0;
    while (at < bytes.length && !ended) {
      if (trailing > 0) {
        const skip = Math.min(trailing, bytes.length - at);
        trailing -= skip;
        at += skip;
      } else if (remaining > 0) {
        const take = Math.min(remaining, bytes.length - at);
        onData(bytes.subarray(at, at + take));
        remaining -= take;
        at += take;
        if (remaining === 0) trailing = 2;
      } else {
        const lineEnd = bytes.indexOf(NEWLINE, at);
        if (lineEnd === -1) {
          sizeLine += bytes.toString("latin1", at);
          return;
        }
        sizeLine += bytes.toString("latin1", at, lineEnd);
        at = lineEnd + 1;
        remaining = Number.parseInt(sizeLine.trim(), 16);
        sizeLine = "";
        if (remaining === 0 || Number.isNaN(remaining)) {
          ended = true;
          onEnd();
        }
      }
    }
  };
}

function open(resourceVersion: string | undefined, onAnswer: () => void): void {
  const socket: Socket =
    protocol === "https:"
      ? connectTls({ port: Number(port), host: hostname, ...(ca !== undefined && { ca }) })
      : connect(Number(port), hostname);
  const query = resourceVersion === undefined ? "" : `&resourceVersion=${resourceVersion}`;
  socket.write(
    `GET ${watchPath}?watch=true${query} HTTP/1.1\r\nHost: ${hostname}\r\n${authorization}Connection: close\r\n\r\n`,
  );
  let head = "";
  let answered = false;
  let watching = false;
  let done = false;
  /** The last whole line of the body, and what followed it so far. */
  let lastLine: Buffer | undefined;
  let partial: Buffer | undefined;

  const onData = (data: Buffer) => {
    let lines = 0;
    for (let at = data.indexOf(NEWLINE); at !== -1; at = data.indexOf(NEWLINE, at + 1)) lines++;
    if (lines === 0) {
      partial = partial === undefined ? data : Buffer.concat([partial, data]);
      return;
    }
    counts.events += lines;
    const end = data.lastIndexOf(NEWLINE);
    const before = end === 0 ? -1 : data.lastIndexOf(NEWLINE, end - 1);
    lastLine =
      before === -1
        ? Buffer.concat(partial === undefined ? [data.subarray(0, end)] : [partial, data.subarray(0, end)])
        : data.subarray(before + 1, end);
    partial = end + 1 < data.length ? data.subarray(end + 1) : undefined;
  };
  // The end of the watch, once: by the answer's last chunk or by the connection closing.
  const ended = () => {
    if (done) return;
    done = true;
    socket.destroy();
    if (stopping) return;
    counts.endedByServer++;
    const { version, error } = lastEvent(lastLine);
    if (error !== undefined) {
      // The ERROR event was counted as a line: it is no event of the kind.
      counts.events--;
      if (error === 410) {
        counts.expired++;
        return;
      }
      // kube-apiserver's 504 "Too large resource version" (its watch cache behind the version asked for)
      // says to ask again after a second; so is any other.
      counts.errors++;
      if (mode === "read") setTimeout(() => open(resourceVersion, () => {}), RETRY_AFTER_MS);
      return;
    }
    if (mode === "read") open(version ?? resourceVersion, () => {});
  };
  let body: ((bytes: Buffer) => void) | undefined;

  socket.on("data", (chunk: Buffer) => {
    if (body !== undefined) {
      body(chunk);
      return;
    }
    head += chunk.toString("latin1");
    const headEnd = head.indexOf(HEAD_END);
    if (headEnd === -1) return;
    answered = true;
    if (head.startsWith("HTTP/1.1 429")) {
      // kube-apiserver's answer while a new kind's watch cache fills: asked again after its Retry-After.
      done = true;
      socket.destroy();
      setTimeout(() => open(resourceVersion, onAnswer), RETRY_AFTER_MS);
      return;
    }
    onAnswer();
    if (!head.startsWith("HTTP/1.1 200")) {
      counts.refused++;
      done = true;
      socket.destroy();
      return;
    }
    counts.opened++;
    watching = true;
    if (mode === "stall") {
      socket.pause();
      return;
    }
    const chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head.slice(0, headEnd));
    body = chunked ? chunkedDecoder(onData, ended) : onData;
    // What came in the same read as the head is the body's start.
    const rest = Buffer.from(head.slice(headEnd + HEAD_END.length), "latin1");
    if (rest.length > 0) body(rest);
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    if (!answered || !watching) return;
    ended();
  });
}

let stopping = false;
const total = Number(countText);
let answered = 0;
for (let i = 0; i < total; i++) {
  open(startVersion, () => {
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
