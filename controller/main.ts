#!/usr/bin/env node
// `exampledev-controller` (`npm run controller`): the Service controller against any Kubernetes API server
// with the CRDs installed, one of possibly several replicas of which the Lease's holder acts. Logs are pino
// JSON on stdout. SIGINT or SIGTERM stop it (the lease released); losing the lease exits with code 1 at
// once, for the supervisor to start it again, as client-go's controllers do. `/healthz` and `/readyz` on
// --health-port (health.ts) are the kubelet's probes; with --webhook-secret, git push deliveries
// (`POST /hooks/git`, hooks/handler.ts) are taken on the same port, acted on by the leader.
import "../sdk/shared/node-version"; // first: fails on a Node older than the package needs, before anything loads
import pino from "pino";
import { collectDefaultMetrics, Registry } from "prom-client";
import { connectionOf } from "../cli/connection";
import { FlagError, parseCommandLine, parsedOrExit } from "../cli/flags";
import { stopOnSignals } from "../cli/stop-signals";
import { createClient } from "../sdk/client";
import { SECRETS_NAMESPACE } from "../sdk/schema";
import { CONTROLLER_FLAGS, CONTROLLER_USAGE, controllerSettings } from "./flags";
import { DEFAULT_HEALTH, startHealthServer } from "./health";
import { gitHookHandler } from "./hooks/handler";
import { DEFAULT_LEASE_NAME } from "./leader-election";
import { controllerMetrics } from "./metrics";
import { type Replica, startReplica } from "./replica";

const USAGE = `usage: npm run controller -- [--kubeconfig <file>] [--context <name>]
                             [--lease-namespace ${SECRETS_NAMESPACE}] [--lease-name ${DEFAULT_LEASE_NAME}]
                             [--health-port ${DEFAULT_HEALTH.port}] [--health-address ${DEFAULT_HEALTH.address}]
                             [controller flags below]
Without --kubeconfig: $KUBECONFIG, else the service account of the pod it runs in. Replicas elect the one
that acts through the Lease (15s lease, renewed every 2s; a leader that cannot renew for 10s exits). The
Role in deploy/ lets the controller read and write the default Lease name only. /healthz and /readyz
(200 for a standby and for a leader whose caches are synced) and /metrics (Prometheus: to loopback, and to
callers kube-apiserver allows to get /metrics) are served on --health-port (0: not served),
and with --webhook-secret so are POST /hooks/git deliveries signed with it: the leader acts on them, a
standby answers 503 with Retry-After (the forge's redelivery or the next git poll catches up).
${CONTROLLER_USAGE}`;

function parseOptions(args: string[]) {
  const values = parseCommandLine(
    args,
    {
      kubeconfig: { type: "string" },
      context: { type: "string" },
      "lease-namespace": { type: "string", default: SECRETS_NAMESPACE },
      "lease-name": { type: "string", default: DEFAULT_LEASE_NAME },
      "health-port": { type: "string", default: String(DEFAULT_HEALTH.port) },
      "health-address": { type: "string", default: DEFAULT_HEALTH.address },
      ...CONTROLLER_FLAGS,
    },
    USAGE,
  );
  const settings = controllerSettings(values);
  const health = { address: values["health-address"], port: port(values["health-port"]) };
  if (settings.webhookSecret !== undefined && health.port === 0)
    throw new FlagError("--webhook-secret: deliveries are taken on --health-port, which is 0 (not served)");
  return {
    connection: connectionOf(values),
    lease: { namespace: values["lease-namespace"], name: values["lease-name"] },
    settings,
    health,
  };
}

function port(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 65_535)
    throw new FlagError("--health-port: a port number, or 0 to serve no health endpoint");
  return Number(text);
}

async function main(): Promise<void> {
  const options = parsedOrExit(() => parseOptions(process.argv.slice(2)), USAGE);
  const log = pino({ level: options.settings.logLevel });
  // Listening first: a port in use ends the command before it takes part in the election (until the
  // replica starts, the endpoints answer as a standby's).
  let started: Replica | undefined;
  const { webhookSecret } = options.settings;
  const gitHook =
    webhookSecret === undefined
      ? undefined
      : gitHookHandler({
          receiver: { receive: (event) => started?.running()?.git.receive(event) },
          secret: webhookSecret,
        });
  // Metrics beside the probes: the process's (prom-client's defaults) and the controller's (metrics.ts).
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const leads = () => ["syncing", "leading"].includes(started?.phase() ?? "standby");
  controllerMetrics(registry).leaderOf(options.lease.name, leads);
  const reviewer = createClient(options.connection);
  const metrics = {
    registry,
    authorize: (token: string) => reviewer.reviews.allowedNonResource(token, "/metrics", "get"),
  };
  const health =
    options.health.port === 0
      ? undefined
      : await startHealthServer(options.health, () => started?.phase() ?? "standby", gitHook, metrics).catch(
          (error: Error) => {
            throw new Error(`--health-port ${options.health.port}: ${error.message}`);
          },
        );
  const replica = startReplica({ ...options, log, metrics: registry });
  started = replica;
  if (health)
    log.info(
      { url: health.url },
      gitHook
        ? "serving /healthz, /readyz, /metrics and /hooks/git"
        : "serving /healthz, /readyz and /metrics",
    );
  replica.lost.then(() => {
    log.fatal({ identity: replica.identity }, "lost the lease: exiting");
    process.exit(1);
  });
  stopOnSignals(
    async () => {
      log.info({ identity: replica.identity }, "stopping");
      await replica.stop();
      await health?.close();
      await reviewer.close();
    },
    (message) => log.error({ identity: replica.identity }, message),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
