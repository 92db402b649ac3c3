#!/usr/bin/env node
// `exampledev-server` (`npm run server` in a checkout): the local API server, controller included. It prints
// `listening on <url>` once it accepts requests; SIGINT or SIGTERM stop it.
import "../sdk/shared/node-version"; // first: fails on a Node older than the package needs, before anything loads
import { parseCommandLine, parseSize } from "../cli/flags";
import { stopOnSignals } from "../cli/stop-signals";
import { CONTROLLER_FLAGS, CONTROLLER_USAGE, controllerSettings } from "../controller/flags";
import { DEFAULT_MAX_OBJECT_BYTES, startServer } from "./index";
import { DEFAULT_WATCH_SETTINGS } from "./routes/watch";

const USAGE = `usage: exampledev-server [--port 8080] [--host 127.0.0.1] [--data <dir> | --memory]
                        [--token <token>] [--max-object-size 1.5Mi]
                        [--max-watches 4096] [controller flags below]
(in a checkout of the repository: npm run server -- <flags>). --port 0 picks a free port; the line
"listening on <url>" says which, once the server accepts requests. --data defaults to .exampledev-server.
The token can also come from EXAMPLEDEV_SERVER_TOKEN, which keeps it out of the process list.
--max-watches bounds the watches open at once; past it a watch is refused with 429 and Retry-After.
--max-object-size (a size such as 1.5Mi, 512Ki or 2000000; default 1.5Mi, etcd's) bounds an object as
JSON: a create, replace, patch or apply, dry run or not, that would store more is refused (413), a JSON
patch stops as soon as its copies exceed it, and a request body over twice it is refused unread.
Deliveries to POST /hooks/git signed with the --webhook-secret below need no API token.
${CONTROLLER_USAGE}`;

const DEFAULT_PORT = 8080;
const DEFAULT_DATA_DIR = ".exampledev-server";

function parseOptions(args: string[]) {
  const values = parseCommandLine(
    args,
    {
      port: { type: "string", default: String(DEFAULT_PORT) },
      host: { type: "string", default: "127.0.0.1" },
      data: { type: "string" },
      memory: { type: "boolean", default: false },
      token: { type: "string" },
      "max-watches": { type: "string" },
      "max-object-size": { type: "string" },
      ...CONTROLLER_FLAGS,
    },
    USAGE,
  );
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--port: "${values.port}" is not a port (0-65535)`);
  if (values.memory && values.data !== undefined) fail("--memory and --data exclude each other; pick one");
  if (values.token === "") fail("--token: give a non-empty token, or leave the flag out to disable auth");
  const maxWatches = Number(values["max-watches"] ?? DEFAULT_WATCH_SETTINGS.maxWatches);
  if (!Number.isSafeInteger(maxWatches) || maxWatches < 1)
    fail(`--max-watches: "${values["max-watches"]}" is not a positive whole number`);
  const maxObjectBytes = parseSize("max-object-size", values["max-object-size"], DEFAULT_MAX_OBJECT_BYTES);
  if (maxObjectBytes < 1) fail("--max-object-size: give a size of at least 1 byte, such as 1.5Mi");
  return {
    port,
    host: values.host,
    storage: values.memory ? ("memory" as const) : { dir: values.data ?? DEFAULT_DATA_DIR },
    token: values.token ?? (process.env.EXAMPLEDEV_SERVER_TOKEN || undefined),
    watch: { maxWatches },
    maxObjectBytes,
    // Flag errors (FlagError) reach main, which prints them with the usage.
    ...controllerSettings(values),
  };
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

  stopOnSignals(
    () => server.close(),
    (message) => console.error(message),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
