#!/usr/bin/env node
// `exampledev-admission-webhook` (`npm run webhook`): the admission webhook (webhook/server.ts, the
// same server `npm run kube` runs in its process) over HTTPS on its own, as deploy/ runs it in a pod behind
// the Service exampledev-system/exampledev-admission-webhook. It connects as the webhook's service account
// (or a kubeconfig's user) to mint and read the Secrets of secret values, re-reads its certificate files
// when they change (a renewed Secret), serves /healthz and /readyz beside /admit, and logs pino JSON on
// stdout. SIGINT or SIGTERM stop it once the requests in flight are answered; exit code 0.
import "../sdk/shared/node-version"; // first: fails on a Node older than the package needs, before anything loads
import { readFile } from "node:fs/promises";
import { type ParseArgsConfig, parseArgs } from "node:util";
import pino from "pino";
import { collectDefaultMetrics, Registry } from "prom-client";
import { connectionOf } from "../cli/connection";
import { FlagError, LOG_LEVELS, parsedOrExit } from "../cli/flags";
import { stopOnSignals } from "../cli/stop-signals";
import { createClient } from "../sdk/client";
import { readCertificateFiles, watchCertificateFiles } from "./certificate-files";
import { webhookClient } from "./client";
import { DEFAULT_SWEEP, REVIEW_BYTES_IN_FLIGHT, startAdmissionServer, WEBHOOK_CLIENT_USER } from "./server";

const MIB = 1024 * 1024;

const USAGE = `usage: npm run webhook -- --tls-cert <file> --tls-key <file> [--port 8443] [--bind-address 0.0.0.0]
                          [--kubeconfig <file>] [--context <name>] [--cert-reload-interval 10]
                          [--log-level info] [--client-ca <file> [--client-cn <name,...>]]
                          [--client-ca-optional] [--max-review-mib-in-flight 10]
Serves /admit (the MutatingWebhookConfiguration in deploy/), /healthz and /readyz over HTTPS. The PEM
certificate and key are read again every --cert-reload-interval seconds (0: never) and served once they
change. Without --kubeconfig: $KUBECONFIG, else the service account of the pod it runs in
(exampledev-admission-webhook: it reads the three kinds and keeps Secrets in exampledev-system).
With --client-ca (--client-ca-optional: unless the file is missing), /admit answers only a caller presenting a client certificate that CA signed, whose CN is
one of --client-cn (default ${WEBHOOK_CLIENT_USER}): kube-apiserver, given that certificate by its
admission configuration's kubeconfig; anyone else gets 401. A review that would take the reviews admitted at once past
--max-review-mib-in-flight MiB (by their Content-Length) gets 429; one is always admitted.`;

const FLAGS = {
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  port: { type: "string", default: "8443" },
  "bind-address": { type: "string", default: "0.0.0.0" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
  "cert-reload-interval": { type: "string", default: "10" },
  "log-level": { type: "string", default: "info" },
  "client-ca": { type: "string" },
  "client-ca-optional": { type: "boolean", default: false },
  "client-cn": { type: "string", default: WEBHOOK_CLIENT_USER },
  "max-review-mib-in-flight": { type: "string", default: String(REVIEW_BYTES_IN_FLIGHT / MIB) },
  help: { type: "boolean", default: false },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

function parseOptions(args: string[]) {
  const { values } = parseArgs({ args, options: FLAGS, strict: true });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const certFile = values["tls-cert"];
  const keyFile = values["tls-key"];
  if (!certFile || !keyFile)
    throw new FlagError("--tls-cert and --tls-key: name the PEM certificate and key");
  const logLevel = values["log-level"];
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new FlagError(`--log-level: use one of ${LOG_LEVELS.join(", ")}`);
  return {
    files: { certFile, keyFile },
    listen: { host: values["bind-address"], port: integer("--port", values.port, 65_535) },
    reloadMs: integer("--cert-reload-interval", values["cert-reload-interval"], 86_400) * 1000,
    connection: connectionOf(values),
    logLevel,
    clientCaFile: values["client-ca"],
    clientCaOptional: values["client-ca-optional"],
    clientNames: values["client-cn"].split(",").filter((name) => name !== ""),
    reviewBytesInFlight:
      integer("--max-review-mib-in-flight", values["max-review-mib-in-flight"], 1_024) * MIB,
  };
}

function integer(flag: string, text: string, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > max) throw new FlagError(`${flag}: a whole number from 0 to ${max}`);
  return value;
}

async function main(): Promise<void> {
  const options = parsedOrExit(() => parseOptions(process.argv.slice(2)), USAGE);
  const log = pino({ level: options.logLevel });
  const served = await readCertificateFiles(options.files);
  // Metrics on the same port (metrics.ts): the process's and the reviews'.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const reviewer = createClient(options.connection);
  const clientCa = await readClientCa(options.clientCaFile, options.clientCaOptional, log);
  const server = await startAdmissionServer({
    client: webhookClient(options.connection),
    ...served,
    sweep: DEFAULT_SWEEP,
    // deploy/ runs the controller beside it, which drains Proxies.
    drainProxies: true,
    listen: options.listen,
    log,
    ...(clientCa !== undefined && { clientAuth: { ca: clientCa, names: options.clientNames } }),
    reviewBytesInFlight: options.reviewBytesInFlight,
    metrics: {
      registry,
      authorize: (token) => reviewer.reviews.allowedNonResource(token, "/metrics", "get"),
    },
  });
  const watch =
    options.reloadMs === 0
      ? undefined
      : watchCertificateFiles(options.files, served, {
          intervalMs: options.reloadMs,
          onChange: (pair) => {
            server.setCertificate(pair.cert, pair.key);
            log.info(options.files, "serving the renewed certificate");
          },
          onError: (error) => log.warn({ error: String(error) }, "could not read the certificate files"),
        });
  log.info({ url: server.url, connection: options.connection.baseUrl }, "serving /admit");
  stopOnSignals(
    async () => {
      log.info("stopping");
      watch?.stop();
      await server.close();
    },
    (message) => log.error(message),
  );
}

/**
 * The CA of kube-apiserver's client certificate, from --client-ca. With --client-ca-optional, a file that is
 * not there (deploy/ mounts an optional ConfigMap) means no client authentication, said in the log.
 */
async function readClientCa(file: string | undefined, optional: boolean, log: pino.Logger) {
  if (file === undefined) return undefined;
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if (!optional || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    log.warn({ file }, "no client CA: /admit answers any caller (restrict it with a NetworkPolicy)");
    return undefined;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
