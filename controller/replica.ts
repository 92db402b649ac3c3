// One replica of the controller as the commands run it (`exampledev-controller`, `npm run kube`): a client
// from the connection, the credentials file, a replica identity, and the controller under leader election.
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { CredentialsFile } from "../builder/credentials";
import { type ClientOptions, createClient } from "../sdk/client";
import { SECRETS_NAMESPACE } from "../sdk/schema";
import { type ElectedController, runElectedController } from "./elected";
import type { ControllerSettings } from "./flags";
import { DEFAULT_LEASE_NAME, replicaIdentity } from "./leader-election";

export interface ReplicaOptions {
  connection: ClientOptions;
  settings: ControllerSettings;
  /** Default `exampledev-system/exampledev-controller`. */
  lease?: { namespace: string; name: string };
  log: Logger;
  /** Where the controller's metrics go (metrics.ts), served on the health port. */
  metrics?: Registry;
}

export interface Replica extends ElectedController {
  /** `hostname_pid_random`, the Lease's holderIdentity while it leads. */
  identity: string;
}

/** Starts the replica; it acts once it holds the lease. Throws when the credentials file is unusable. */
export function startReplica(options: ReplicaOptions): Replica {
  const { settings, log } = options;
  const identity = replicaIdentity();
  const credentials =
    settings.credentialsFile === undefined
      ? undefined
      : CredentialsFile.open(settings.credentialsFile, log.child({ component: "credentials" }));
  const client = createClient(options.connection);
  const elected = runElectedController({
    client,
    controller: {
      gateways: settings.egressGateways,
      tagPollIntervalMs: settings.tagPollIntervalMs,
      proxyDeletionGraceMs: settings.proxyDeletionGraceMs,
      workers: settings.workers,
      git: settings.git,
      ...(credentials && { credentials }),
      ...(options.metrics && { metrics: options.metrics }),
    },
    election: { ...(options.lease ?? { namespace: SECRETS_NAMESPACE, name: DEFAULT_LEASE_NAME }), identity },
    informers: { onError: (error) => log.warn({ error: String(error) }, "a watch failed; retrying") },
    log: log.child({ component: "controller" }),
  });
  return {
    ...elected,
    identity,
    async stop() {
      await elected.stop();
      await client.close();
      credentials?.close();
    },
  };
}
