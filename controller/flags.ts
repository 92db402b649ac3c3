// The controller's command-line flags, shared by the two commands that run it: the local server
// (`npm run server`, embedded) and `exampledev-controller` (against any Kubernetes API server). Each
// command spreads CONTROLLER_FLAGS into its parseArgs options and turns the values into settings here.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { PROXY_DRAIN_FINALIZER, parseDuration } from "../sdk/schema";
import { GIT_DEFAULTS } from "./git";
import { DEFAULT_WORKERS } from "./index";
import { DEFAULT_TAG_POLL_INTERVAL_MS } from "./tag-poll";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

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
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

export const CONTROLLER_USAGE = `Controller: [--egress-gateways default,...] [--log-level info] [--credentials <file>]
[--tag-poll-interval 30s] [--git-allow <prefix,...>] [--git-poll-interval 30s] [--build-commands]
[--build-timeout 10m] [--git-max-clone-size 1Gi] [--proxy-deletion-grace 1s] [--controller-workers 8]
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
holds up only the Services that name it.`;

type FlagDefinitions = NonNullable<ParseArgsConfig["options"]>;

/**
 * A command's arguments: its own `options`, the controller's flags and `--help` (which prints `usage` and
 * exits). An unknown flag throws.
 */
export function parseCommandLine<Options extends FlagDefinitions>(
  args: string[],
  options: Options,
  usage: string,
  // Written out: the inferred type's declaration names a type parameter of @types/node's that is not in scope.
): ReturnType<typeof parseArgs<CommandLine<Options>>>["values"] {
  const config: CommandLine<Options> = {
    args,
    options: { ...options, ...CONTROLLER_FLAGS, ...HELP_FLAG },
    strict: true,
  };
  const { values } = parseArgs(config);
  if ((values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return values;
}

const HELP_FLAG = { help: { type: "boolean", default: false } } as const;

interface CommandLine<Options extends FlagDefinitions> {
  args: string[];
  options: Options & typeof CONTROLLER_FLAGS & typeof HELP_FLAG;
  strict: true;
}

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
}

/** A flag's value that cannot be used; the message names the flag. Commands print it with their usage. */
export class FlagError extends Error {
  override name = "FlagError";
}

/**
 * A command's options, or exit 2 with the message: followed by the usage when the flags are at fault (a
 * `FlagError`, or parseArgs' own refusal of an unknown or malformed flag).
 */
export function parsedOrExit<T>(parse: () => T, usage: string): T {
  try {
    return parse();
  } catch (error) {
    const flags =
      error instanceof FlagError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    console.error(`${(error as Error).message}${flags ? `\n${usage}` : ""}`);
    process.exit(2);
  }
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
  git: {
    allow?: string[];
    pollIntervalMs: number;
    buildCommands: boolean;
    buildTimeoutMs: number;
    maxCloneBytes: number;
  };
}

/** The settings the flags give, and `EXAMPLEDEV_PROXY_DELETION_GRACE` where its flag is absent. Throws `FlagError`. */
export function controllerSettings(
  values: ControllerFlagValues,
  env: NodeJS.ProcessEnv = process.env,
): ControllerSettings {
  const logLevel = values["log-level"] ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new FlagError(`--log-level: use one of ${LOG_LEVELS.join(", ")}`);
  if (values.credentials === "") throw new FlagError("--credentials: give the path of a YAML or JSON file");
  const allow = list(values["git-allow"]);
  if (allow?.length === 0)
    throw new FlagError("--git-allow: name at least one URL prefix, or leave the flag out");
  return {
    egressGateways: list(values["egress-gateways"]) ?? ["default"],
    logLevel: logLevel as LogLevel,
    ...(values.credentials !== undefined && { credentialsFile: values.credentials }),
    tagPollIntervalMs: duration(
      "tag-poll-interval",
      values["tag-poll-interval"],
      DEFAULT_TAG_POLL_INTERVAL_MS,
    ),
    proxyDeletionGraceMs: duration(
      "proxy-deletion-grace",
      values["proxy-deletion-grace"] ?? (env.EXAMPLEDEV_PROXY_DELETION_GRACE || undefined),
      DEFAULT_PROXY_DELETION_GRACE_MS,
    ),
    workers: workerCount(values["controller-workers"]),
    git: {
      ...(allow && { allow }),
      pollIntervalMs: duration("git-poll-interval", values["git-poll-interval"], GIT_DEFAULTS.pollIntervalMs),
      buildCommands: values["build-commands"] ?? false,
      buildTimeoutMs: duration("build-timeout", values["build-timeout"], GIT_DEFAULTS.buildTimeoutMs, {
        positive: true,
      }),
      maxCloneBytes: parseSize(
        "git-max-clone-size",
        values["git-max-clone-size"],
        GIT_DEFAULTS.maxCloneBytes,
      ),
    },
  };
}

function workerCount(text: string | undefined): number {
  if (text === undefined) return DEFAULT_WORKERS;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 1000)
    throw new FlagError(`--controller-workers: "${text}" is not a whole number from 1 to 1000`);
  return Number(text);
}

/** How long a deleted Proxy drains unless told otherwise: the local server's grace since its first days. */
export const DEFAULT_PROXY_DELETION_GRACE_MS = 1000;

const SIZE_UNITS: Readonly<Record<string, number>> = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A size flag: bytes, or a number with a binary unit (`512Ki`, `1.5Mi`, `2Gi`), whole bytes. */
export function parseSize(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|)$/.exec(text);
  if (!match) throw new FlagError(`--${flag}: "${text}" is not a size such as 1.5Mi, 512Ki or 2Gi`);
  return Math.floor(Number(match[1]) * (SIZE_UNITS[match[2] ?? ""] ?? 1));
}

/** A Go duration flag in milliseconds; 0 means off unless `positive`. */
function duration(
  flag: string,
  text: string | undefined,
  fallback: number,
  { positive = false } = {},
): number {
  const ms = text === undefined ? fallback : parseDuration(text);
  if (ms === undefined || ms < 0 || (positive && ms === 0))
    throw new FlagError(
      `--${flag}: "${text}" is not a duration such as 30s, 10m${positive ? "" : " or 0 (off)"}`,
    );
  return ms;
}

/** A comma-separated list, blanks dropped; undefined when the flag is absent. */
function list(text: string | undefined): string[] | undefined {
  return text
    ?.split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}
