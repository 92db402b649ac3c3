import { type Client, createClient, type ResourceClient } from "../sdk/client";
import type { KindName } from "../sdk/schema";
import { accessProblem, explainingClient } from "./access";
import { type AnyObject, KIND_BEHAVIOUR } from "./kinds";
import {
  apiAddressConfigured,
  booleanSetting,
  type ConfigSource,
  resolveAccess,
  validationDeferredToPolicies,
} from "./settings";
import { reportWarning } from "./step-log";

/** How the provider writes: PUT/POST (the default) or server-side apply, and whether it may take over fields. */
export interface WriteMode {
  serverSideApply: boolean;
  /** Server-side apply takes over conflicting fields other managers own. */
  force: boolean;
}

/**
 * What the provider reads from one `configure`: each setting is resolved once, at its first use, and an
 * unusable one fails the call that needs it, not configure, so a preview that calls no API needs no address.
 */
export interface ProviderSettings {
  /** Whether `check` leaves spec errors to the policy pack. */
  deferValidationToPolicies(): boolean;
  /**
   * Whether `check` and `diff` ask the API with dryRun=All: the setting is on and an API address is set.
   * Without an address, preview stays offline, as without the setting.
   */
  serverDryRun(): boolean;
  writeMode(): WriteMode;
  /**
   * With serverDryRun: whether the API can be reached at the address, takes the credentials and serves the
   * kind, asked once (a list of one object); a message naming the setting to fix if not. Undefined
   * without serverDryRun, and when the API answered.
   */
  accessProblem(kind: KindName): Promise<string | undefined>;
  /**
   * The one client (and so one connection pool) of these settings, made at the first API call. Its warnings
   * go to the step they were answered in (`withStepLog`).
   */
  client(): Client;
  /** The API's address (`exampledev:baseUrl`, or the kubeconfig's server), for messages. */
  apiAddress(): string;
  /** Closes the client, if one was made: the settings of the next configure replace these. */
  close(): void;
}

/** Before configure: every setting from the environment, or its default. */
export const NO_CONFIG: ConfigSource = { get: () => undefined };

export function providerSettings(config: ConfigSource): ProviderSettings {
  const deferValidationToPolicies = once(() => validationDeferredToPolicies(config));
  const serverDryRun = once(() => booleanSetting(config, "serverDryRun") && apiAddressConfigured(config));
  const writeMode = once(() => ({
    serverSideApply: booleanSetting(config, "serverSideApply"),
    force: booleanSetting(config, "serverSideApplyForce"),
  }));
  const access = once(() => resolveAccess(config));
  let client: Client | undefined;
  const theClient = () => {
    // Failures to reach the API or refusals of the credentials name the setting to fix (access.ts).
    client ??= explainingClient(createClient({ ...access().settings, onWarning: reportWarning }), () => {
      return access().origins;
    });
    return client;
  };
  let accessChecked: Promise<string | undefined> | undefined;
  return {
    deferValidationToPolicies,
    serverDryRun,
    writeMode,
    accessProblem: (kind) => {
      if (!serverDryRun()) return Promise.resolve(undefined);
      accessChecked ??= (async () => {
        let accessor: ResourceClient<AnyObject, unknown>;
        try {
          accessor = KIND_BEHAVIOUR[kind].accessor(theClient());
        } catch (error) {
          // Settings that cannot be used (a kubeconfig without the context): their message names them.
          return error instanceof Error ? error.message : String(error);
        }
        return accessProblem(
          () => accessor.list({ limit: 1 }),
          () => access().origins,
          kind,
        );
      })();
      return accessChecked;
    },
    client: theClient,
    apiAddress: () => access().settings.baseUrl,
    close: () => void client?.close(),
  };
}

/** `read` run at the first call only; later calls return its value, or throw its error, again. */
function once<T>(read: () => T): () => T {
  let outcome: { value: T } | { error: unknown } | undefined;
  return () => {
    if (outcome === undefined) {
      try {
        outcome = { value: read() };
      } catch (error) {
        outcome = { error };
      }
    }
    if ("error" in outcome) throw outcome.error;
    return outcome.value;
  };
}
