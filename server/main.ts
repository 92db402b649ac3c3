#!/usr/bin/env node
// `exampledev-server` (`npm run server` in a checkout): the local API server, controller included. It prints
// `listening on <url>` once it accepts requests; SIGINT or SIGTERM stop it.
import "../sdk/shared/node-version"; // first: fails on a Node older than the package needs, before anything loads
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCommandLine, parseSize } from "../cli/flags";
import { stopOnSignals } from "../cli/stop-signals";
import { CONTROLLER_FLAGS, CONTROLLER_USAGE, controllerSettings } from "../controller/flags";
import { DEFAULT_MAX_OBJECT_BYTES, startServer } from "./index";
import { DEFAULT_WATCH_SETTINGS } from "./routes/watch";
import { readTlsFiles, selfSignedCertificate, type TlsFiles } from "./tls";

const USAGE = `usage: exampledev-server [--port 8080] [--host 127.0.0.1] [--data <dir> | --memory]
                        [--token <token>] [--max-object-size 1.5Mi] [--max-storage <size>]
                        [--tls-cert-file <file> --tls-private-key-file <file> | --tls-self-signed]
                        [--max-watches 4096] [controller flags below]
(in a checkout of the repository: npm run server -- <flags>). --port 0 picks a free port; the line
"listening on <url>" says which, once the server accepts requests. --data defaults to .exampledev-server.
The token can also come from EXAMPLEDEV_SERVER_TOKEN, which keeps it out of the process list.
--max-watches bounds the watches open at once; past it a watch is refused with 429 and Retry-After.
--max-object-size (a size such as 1.5Mi, 512Ki or 2000000; default 1.5Mi, etcd's) bounds an object as
JSON: a create, replace, patch or apply, dry run or not, that would store more is refused (413), a JSON
patch stops as soon as its copies exceed it, and a request body over twice it is refused unread.
--max-storage (a size such as 64Mi or 2Gi; default none, as much as the disk holds) bounds the store's
database in --data, as etcd's --quota-backend-bytes: past it, or on a full disk, writes are refused (500,
"database space exceeded", naming the data directory and the cause) while reads, lists and watches go on;
writes are taken again once deletes, or the disk, make room. The server also starts read-only on a full disk.
Deliveries to POST /hooks/git signed with the --webhook-secret below need no API token.
--tls-cert-file and --tls-private-key-file serve HTTPS with that PEM certificate and key; --tls-self-signed
makes a certificate for 127.0.0.1, ::1, localhost and --host, writes it to <data dir>/tls/ca.crt (a temporary
file with --memory) and prints its path: a kubeconfig's certificate-authority. kubectl sends a kubeconfig's
token only over TLS. GET /metrics (Prometheus) answers loopback callers, and with --token only its holders.
${CONTROLLER_USAGE}`;

const DEFAULT_PORT = 8080;
const DEFAULT_DATA_DIR = ".exampledev-server";
/** The store's tables and a few objects: a quota below it refuses every write. */
const MIN_STORAGE_BYTES = 1024 * 1024;

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
      "max-storage": { type: "string" },
      "tls-cert-file": { type: "string" },
      "tls-private-key-file": { type: "string" },
      "tls-self-signed": { type: "boolean", default: false },
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
  const maxStorage = values["max-storage"];
  const maxBytes = maxStorage === undefined ? undefined : parseSize("max-storage", maxStorage, 0);
  if (maxBytes !== undefined && maxBytes < MIN_STORAGE_BYTES)
    fail("--max-storage: give a size of at least 1Mi, such as 64Mi");
  if (maxBytes !== undefined && values.memory)
    fail("--max-storage bounds --data; --memory has no disk to bound");
  const certFile = values["tls-cert-file"];
  const keyFile = values["tls-private-key-file"];
  if ((certFile === undefined) !== (keyFile === undefined))
    fail("--tls-cert-file and --tls-private-key-file go together: give both, or --tls-self-signed");
  if (certFile !== undefined && values["tls-self-signed"])
    fail("--tls-self-signed makes a certificate: leave out --tls-cert-file and --tls-private-key-file");
  return {
    port,
    host: values.host,
    tlsFiles: certFile !== undefined && keyFile !== undefined ? { certFile, keyFile } : undefined,
    selfSigned: values["tls-self-signed"],
    storage: values.memory
      ? ("memory" as const)
      : { dir: values.data ?? DEFAULT_DATA_DIR, ...(maxBytes !== undefined && { maxBytes }) },
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
  const { tlsFiles, selfSigned, ...serverOptions } = options;
  let tls: TlsFiles | undefined;
  try {
    tls = tlsFiles ? readTlsFiles(tlsFiles.certFile, tlsFiles.keyFile) : undefined;
    if (selfSigned) {
      tls = selfSignedCertificate([options.host]);
      const dir =
        typeof options.storage === "object"
          ? join(options.storage.dir, "tls")
          : mkdtempSync(join(tmpdir(), "exampledev-server-tls-"));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "ca.crt"), tls.cert);
      console.log(
        `serving TLS with a self-signed certificate; its CA (kubeconfig certificate-authority): ${join(dir, "ca.crt")}`,
      );
    }
  } catch (error) {
    fail((error as Error).message);
  }
  const server = await startServer({ ...serverOptions, ...(tls && { tls }) });
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
