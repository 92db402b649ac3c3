// `exampledev-controller` (`npm run controller`): the Service controller against any Kubernetes API server
// with the CRDs installed, one of possibly several replicas of which the Lease's holder acts. Logs are pino
// JSON on stdout. SIGINT or SIGTERM stop it (the lease released); losing the lease exits with code 1 at
// once, for the supervisor to start it again, as client-go's controllers do.
import pino from "pino";
import { SECRETS_NAMESPACE } from "../sdk/schema";
import { connectionOf } from "./connection";
import { CONTROLLER_USAGE, controllerSettings, FlagError, parseCommandLine } from "./flags";
import { DEFAULT_LEASE_NAME } from "./leader-election";
import { startReplica } from "./replica";
import { stopOnSignals } from "./stop-signals";

const USAGE = `usage: npm run controller -- [--kubeconfig <file>] [--context <name>]
                             [--lease-namespace ${SECRETS_NAMESPACE}] [--lease-name ${DEFAULT_LEASE_NAME}]
                             [controller flags below]
Without --kubeconfig: $KUBECONFIG, else the service account of the pod it runs in. Replicas elect the one
that acts through the Lease (15s lease, renewed every 2s; a leader that cannot renew for 10s exits). The
Role in deploy/ lets the controller read and write the default Lease name only.
${CONTROLLER_USAGE}`;

function parseOptions(args: string[]) {
  const values = parseCommandLine(
    args,
    {
      kubeconfig: { type: "string" },
      context: { type: "string" },
      "lease-namespace": { type: "string", default: SECRETS_NAMESPACE },
      "lease-name": { type: "string", default: DEFAULT_LEASE_NAME },
    },
    USAGE,
  );
  return {
    connection: connectionOf(values),
    lease: { namespace: values["lease-namespace"], name: values["lease-name"] },
    settings: controllerSettings(values),
  };
}

async function main(): Promise<void> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    const usage =
      error instanceof FlagError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    console.error(`${(error as Error).message}${usage ? `\n${USAGE}` : ""}`);
    process.exit(2);
  }
  const log = pino({ level: options.settings.logLevel });
  const replica = startReplica({ ...options, log });
  replica.lost.then(() => {
    log.fatal({ identity: replica.identity }, "lost the lease: exiting");
    process.exit(1);
  });
  stopOnSignals(
    async () => {
      log.info({ identity: replica.identity }, "stopping");
      await replica.stop();
    },
    (message) => log.error({ identity: replica.identity }, message),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
