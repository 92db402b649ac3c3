// The controller's command-line flags, shared by the two commands that run it: the local server
// (`npm run server`, embedded) and `exampledev-controller` (against any Kubernetes API server). Each
// command spreads CONTROLLER_FLAGS into its options (cli/flags.ts parses them) and turns the values into
// settings here.
import { readFileSync } from "node:fs";
import type { ParseArgsConfig } from "node:util";
import { FlagError, LOG_LEVELS, type LogLevel, parseDurationFlag, parseList, parseSize } from "../cli/flags";
import { PROXY_DRAIN_FINALIZER } from "../sdk/schema";
import { GIT_DEFAULTS } from "./git-sources";
import { DEFAULT_WORKERS } from "./index";
import { DEFAULT_TAG_POLL_INTERVAL_MS } from "./tag-poll";

export const CONTROLLER_FLAGS = {
  "egress-gateways": { type: "string", default: "default" },
  "log-level": { type: "string", default: "info" },
  credentials: { type: "string" },
  "tag-poll-interval": { type: "string" },
  "git-allow": { type: "string" },
  "git-poll-interval": { type: "string" },
  "build-commands": { type: "boolean", default: false },
  "build-timeout": { type: "string" },
  "git-max-clone-size": { type: "string" },
  "proxy-deletion-grace": { type: "string" },
  "controller-workers": { type: "string" },
  "webhook-secret": { type: "string" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

/** Where the webhook secret may come from instead of the file `--webhook-secret` names: a Secret's key, in a pod. */
export const WEBHOOK_SECRET_ENV = "EXAMPLEDEV_WEBHOOK_SECRET";

export const CONTROLLER_USAGE = `Controller: [--egress-gateways default,...] [--log-level info] [--credentials <file>]
[--tag-poll-interval 30s] [--git-allow <prefix,...>] [--git-poll-interval 30s] [--build-commands]
[--build-timeout 10m] [--git-max-clone-size 1Gi] [--proxy-deletion-grace 1s] [--controller-workers 8]
[--webhook-secret <file>]
--credentials names a YAML or JSON file of registry credentials that credentialsRefs name, re-read when
it changes. --tag-poll-interval (default 30s, 0 for never) re-resolves OCI tags to mint when they move.
--git-allow lists URL prefixes git sources may be fetched from (default: local paths, file:// and
http(s)/git on loopback hosts); local paths and file:// URLs are compared by real path (symlinks
resolved, in the prefix and in the URL, again before each fetch); --git-poll-interval 0 turns polling
off; --build-commands lets build.command run code from the repository on this machine (off by default);
--git-max-clone-size bounds a mirror and a packaged tree. --proxy-deletion-grace (a duration, 0 for none;
default EXAMPLEDEV_PROXY_DELETION_GRACE, else 1s) is how long a deleted Proxy drains: the controller keeps
the finalizer ${PROXY_DRAIN_FINALIZER} on every Proxy and removes it that long after the deletion.
--controller-workers (default ${DEFAULT_WORKERS}) is how many Services are synced at once (never one Service
twice at once); registries are asked beside the workers, a few requests per host, so a registry that hangs
holds up only the Services that name it. --webhook-secret names a file holding the secret POST /hooks/git
deliveries must be signed with (X-Hub-Signature-256 or X-Gitlab-Token); without the flag, the secret
itself may come from $${WEBHOOK_SECRET_ENV} (a Secret's key, in a pod).`;

/** The values parseArgs gives for CONTROLLER_FLAGS. */
export interface ControllerFlagValues {
  "egress-gateways"?: string;
  "log-level"?: string;
  credentials?: string;
  "tag-poll-interval"?: string;
  "git-allow"?: string;
  "git-poll-interval"?: string;
  "build-commands"?: boolean;
  "build-timeout"?: string;
  "git-max-clone-size"?: string;
  "proxy-deletion-grace"?: string;
  "controller-workers"?: string;
  "webhook-secret"?: string;
}

/** What the flags give `startController` (with the credentials file still to open). */
export interface ControllerSettings {
  egressGateways: string[];
  logLevel: LogLevel;
  credentialsFile?: string;
  tagPollIntervalMs: number;
  /** How long a deleted Proxy drains. */
  proxyDeletionGraceMs: number;
  /** Services synced at once. */
  workers: number;
  /** The secret `POST /hooks/git` deliveries are signed with, read from the file `--webhook-secret` names. */
  webhookSecret?: string;
  git: {
    allow?: string[];
    pollIntervalMs: number;
    buildCommands: boolean;
    buildTimeoutMs: number;
    maxCloneBytes: number;
  };
}

/**
 * The settings the flags give, and `EXAMPLEDEV_PROXY_DELETION_GRACE` and `EXAMPLEDEV_WEBHOOK_SECRET` where
 * their flags are absent. Throws `FlagError`.
 */
export function controllerSettings(
  values: ControllerFlagValues,
  env: NodeJS.ProcessEnv = process.env,
): ControllerSettings {
  const logLevel = values["log-level"] ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new FlagError(`--log-level: use one of ${LOG_LEVELS.join(", ")}`);
  if (values.credentials === "") throw new FlagError("--credentials: give the path of a YAML or JSON file");
  const allow = parseList(values["git-allow"]);
  if (allow?.length === 0)
    throw new FlagError("--git-allow: name at least one URL prefix, or leave the flag out");
  const webhookSecret =
    secretFrom("webhook-secret", values["webhook-secret"]) ?? (env[WEBHOOK_SECRET_ENV] || undefined);
  return {
    egressGateways: parseList(values["egress-gateways"]) ?? ["default"],
    logLevel: logLevel as LogLevel,
    ...(values.credentials !== undefined && { credentialsFile: values.credentials }),
    tagPollIntervalMs: parseDurationFlag(
      "tag-poll-interval",
      values["tag-poll-interval"],
      DEFAULT_TAG_POLL_INTERVAL_MS,
    ),
    proxyDeletionGraceMs: parseDurationFlag(
      "proxy-deletion-grace",
      values["proxy-deletion-grace"] ?? (env.EXAMPLEDEV_PROXY_DELETION_GRACE || undefined),
      DEFAULT_PROXY_DELETION_GRACE_MS,
    ),
    workers: workerCount(values["controller-workers"]),
    ...(webhookSecret !== undefined && { webhookSecret }),
    git: {
      ...(allow && { allow }),
      pollIntervalMs: parseDurationFlag(
        "git-poll-interval",
        values["git-poll-interval"],
        GIT_DEFAULTS.pollIntervalMs,
      ),
      buildCommands: values["build-commands"] ?? false,
      buildTimeoutMs: parseDurationFlag(
        "build-timeout",
        values["build-timeout"],
        GIT_DEFAULTS.buildTimeoutMs,
        {
          positive: true,
        },
      ),
      maxCloneBytes: parseSize(
        "git-max-clone-size",
        values["git-max-clone-size"],
        GIT_DEFAULTS.maxCloneBytes,
      ),
    },
  };
}

/** A secret read from the file a flag names, without its final newline. Throws `FlagError`. */
function secretFrom(flag: string, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new FlagError(
      `--${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  const secret = text.replace(/\r?\n$/, "");
  if (secret === "") throw new FlagError(`--${flag}: ${path} is empty; write the webhook's secret in it`);
  return secret;
}

function workerCount(text: string | undefined): number {
  if (text === undefined) return DEFAULT_WORKERS;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 1000)
    throw new FlagError(`--controller-workers: "${text}" is not a whole number from 1 to 1000`);
  return Number(text);
}

/** How long a deleted Proxy drains unless told otherwise: the local server's grace since its first days. */
export const DEFAULT_PROXY_DELETION_GRACE_MS = 1000;
