import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { LogLevel } from "fastify";
import { DEFAULT_TAG_POLL_INTERVAL_MS, GIT_DEFAULTS } from "../controller";
import { parseDuration } from "../sdk/schema";
import { DEFAULT_MAX_OBJECT_BYTES, DEFAULT_PROXY_DELETION_GRACE_MS, startServer } from "./index";
import { DEFAULT_WATCH_SETTINGS } from "./routes/watch";

const USAGE = `usage: npm run server -- [--port 8080] [--host 127.0.0.1] [--data <dir> | --memory]
                         [--token <token>] [--egress-gateways default,...] [--log-level info]
                         [--proxy-deletion-grace 1s] [--credentials <file>] [--tag-poll-interval 30s]
                         [--max-object-size 1.5Mi] [--max-watches 4096]
The token can also come from EXAMPLEDEV_SERVER_TOKEN, which keeps it out of the process list.
The Proxy deletion grace (a Go duration, 0 for none) defaults to EXAMPLEDEV_PROXY_DELETION_GRACE, else 1s.
--credentials names a YAML or JSON file of registry credentials that credentialsRefs name, re-read when
it changes. --tag-poll-interval (default 30s, 0 for never) re-resolves OCI tags to mint when they move.
--max-watches bounds the watches open at once; past it a watch is refused with 429 and Retry-After.
--max-object-size (a size such as 1.5Mi, 512Ki or 2000000; default 1.5Mi, etcd's) bounds an object as
JSON: a create, replace, patch or apply, dry run or not, that would store more is refused (413), a JSON
patch stops as soon as its copies exceed it, and a request body over twice it is refused unread.
Git sources: [--git-allow <prefix,...>] [--git-poll-interval 30s] [--build-commands] [--build-timeout 10m]
[--git-max-clone-size 1Gi] [--webhook-secret <file>]. --git-allow lists URL prefixes the server may fetch (default: local paths,
file:// and http(s)/git on loopback hosts); local paths and file:// URLs are compared by real path
(symlinks resolved, in the prefix and in the URL, again before each fetch); 0 turns polling off;
--build-commands lets build.command run code from the repository on this machine (off by default); the
size bounds a mirror and a packaged tree. --webhook-secret names a file holding the secret POST /hooks/git
deliveries must be signed with (X-Hub-Signature-256 or X-Gitlab-Token), which then need no API token.`;

const DEFAULT_PORT = 8080;
const DEFAULT_DATA_DIR = ".exampledev-server";
const REPEATED_SIGNAL_MS = 1_000;
const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

function parseOptions(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: String(DEFAULT_PORT) },
      host: { type: "string", default: "127.0.0.1" },
      data: { type: "string" },
      memory: { type: "boolean", default: false },
      token: { type: "string" },
      "egress-gateways": { type: "string", default: "default" },
      "log-level": { type: "string", default: "info" },
      "proxy-deletion-grace": { type: "string" },
      credentials: { type: "string" },
      "tag-poll-interval": { type: "string" },
      "git-allow": { type: "string" },
      "git-poll-interval": { type: "string" },
      "build-commands": { type: "boolean", default: false },
      "build-timeout": { type: "string" },
      "git-max-clone-size": { type: "string" },
      "webhook-secret": { type: "string" },
      "max-watches": { type: "string" },
      "max-object-size": { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--port: "${values.port}" is not a port (0-65535)`);
  if (values.memory && values.data !== undefined) fail("--memory and --data exclude each other; pick one");
  if (values.token === "") fail("--token: give a non-empty token, or leave the flag out to disable auth");
  const logLevel = values["log-level"] as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) fail(`--log-level: use one of ${LOG_LEVELS.join(", ")}`);
  const graceText =
    values["proxy-deletion-grace"] ?? (process.env.EXAMPLEDEV_PROXY_DELETION_GRACE || undefined);
  const proxyDeletionGraceMs =
    graceText === undefined ? DEFAULT_PROXY_DELETION_GRACE_MS : parseDuration(graceText);
  if (proxyDeletionGraceMs === undefined || proxyDeletionGraceMs < 0)
    fail(`--proxy-deletion-grace: "${graceText}" is not a duration such as 1s, 250ms or 0`);
  const tagPollText = values["tag-poll-interval"];
  const tagPollIntervalMs =
    tagPollText === undefined ? DEFAULT_TAG_POLL_INTERVAL_MS : parseDuration(tagPollText);
  if (tagPollIntervalMs === undefined || tagPollIntervalMs < 0)
    fail(`--tag-poll-interval: "${tagPollText}" is not a duration such as 30s, 1m or 0 (off)`);
  if (values.credentials === "") fail("--credentials: give the path of a YAML or JSON file");
  const maxWatches = Number(values["max-watches"] ?? DEFAULT_WATCH_SETTINGS.maxWatches);
  if (!Number.isSafeInteger(maxWatches) || maxWatches < 1)
    fail(`--max-watches: "${values["max-watches"]}" is not a positive whole number`);
  const git = gitOptions(values);
  const webhookSecret = secretFrom("webhook-secret", values["webhook-secret"]);
  const maxObjectBytes = size("max-object-size", values["max-object-size"], DEFAULT_MAX_OBJECT_BYTES);
  if (maxObjectBytes < 1) fail("--max-object-size: give a size of at least 1 byte, such as 1.5Mi");
  return {
    port,
    host: values.host,
    storage: values.memory ? ("memory" as const) : { dir: values.data ?? DEFAULT_DATA_DIR },
    token: values.token ?? (process.env.EXAMPLEDEV_SERVER_TOKEN || undefined),
    egressGateways: values["egress-gateways"]
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean),
    logLevel,
    proxyDeletionGraceMs,
    tagPollIntervalMs,
    ...(values.credentials !== undefined && { credentialsFile: values.credentials }),
    ...(webhookSecret !== undefined && { webhookSecret }),
    watch: { maxWatches },
    git,
    maxObjectBytes,
  };
}

const SIZE_UNITS: Readonly<Record<string, number>> = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A size flag: bytes, or a number with a binary unit (`512Ki`, `1.5Mi`, `2Gi`), whole bytes. */
function size(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|)$/.exec(text);
  if (!match) fail(`--${flag}: "${text}" is not a size such as 1.5Mi, 512Ki or 2Gi`);
  return Math.floor(Number(match[1]) * (SIZE_UNITS[match[2] ?? ""] ?? 1));
}

function gitOptions(values: {
  "git-allow"?: string;
  "git-poll-interval"?: string;
  "build-commands"?: boolean;
  "build-timeout"?: string;
  "git-max-clone-size"?: string;
}) {
  const duration = (flag: string, text: string | undefined, fallback: number, positive: boolean) => {
    const ms = text === undefined ? fallback : parseDuration(text);
    if (ms === undefined || ms < 0 || (positive && ms === 0))
      fail(`--${flag}: "${text}" is not a duration such as 30s, 10m${positive ? "" : " or 0 (off)"}`);
    return ms;
  };
  const allow = values["git-allow"]
    ?.split(",")
    .map((prefix) => prefix.trim())
    .filter(Boolean);
  if (allow?.length === 0) fail("--git-allow: name at least one URL prefix, or leave the flag out");
  return {
    ...(allow && { allow }),
    pollIntervalMs: duration(
      "git-poll-interval",
      values["git-poll-interval"],
      GIT_DEFAULTS.pollIntervalMs,
      false,
    ),
    buildCommands: values["build-commands"] ?? false,
    buildTimeoutMs: duration("build-timeout", values["build-timeout"], GIT_DEFAULTS.buildTimeoutMs, true),
    maxCloneBytes: size("git-max-clone-size", values["git-max-clone-size"], GIT_DEFAULTS.maxCloneBytes),
  };
}

/** A secret read from the file a flag names (a trailing newline dropped), never from the command line. */
function secretFrom(flag: string, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    fail(`--${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const secret = text.replace(/\r?\n$/, "");
  if (secret === "") fail(`--${flag}: ${path} is empty; write the webhook's secret in it`);
  return secret;
}

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

async function main(): Promise<void> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    fail((error as Error).message);
  }
  const server = await startServer(options);
  console.log(`listening on ${server.url}`);

  let stoppingSince: number | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stoppingSince !== undefined) {
      // Under `npm run server`, Ctrl-C reaches this process twice: from the terminal, and forwarded by npm.
      // A repeat within a second is that same request; a later one means the graceful stop takes too long.
      if (Date.now() - stoppingSince < REPEATED_SIGNAL_MS) return;
      console.error(`${signal} again: exiting without waiting for the graceful stop`);
      process.exit(1);
    }
    stoppingSince = Date.now();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`shutdown after ${signal} failed:`, error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
