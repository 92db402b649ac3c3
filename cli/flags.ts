// Command-line plumbing shared by the project's commands (the local server, the controller, the admission
// webhook, the kube harness): parseArgs with `--help`, flag errors that exit 2 with the usage, and the value
// syntaxes flags share (sizes, Go durations, comma-separated lists).
import { type ParseArgsConfig, parseArgs } from "node:util";
import { parseDuration } from "../sdk/schema";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type FlagDefinitions = NonNullable<ParseArgsConfig["options"]>;

/** A command's arguments: its `options` and `--help` (which prints `usage` and exits). An unknown flag throws. */
export function parseCommandLine<Options extends FlagDefinitions>(
  args: string[],
  options: Options,
  usage: string,
  // Written out: the inferred type's declaration names a type parameter of @types/node's that is not in scope.
): ReturnType<typeof parseArgs<CommandLine<Options>>>["values"] {
  const config: CommandLine<Options> = {
    args,
    options: { ...options, ...HELP_FLAG },
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
  options: Options & typeof HELP_FLAG;
  strict: true;
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

const SIZE_UNITS: Readonly<Record<string, number>> = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A size flag: bytes, or a number with a binary unit (`512Ki`, `1.5Mi`, `2Gi`), whole bytes. */
export function parseSize(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|)$/.exec(text);
  if (!match) throw new FlagError(`--${flag}: "${text}" is not a size such as 1.5Mi, 512Ki or 2Gi`);
  return Math.floor(Number(match[1]) * (SIZE_UNITS[match[2] ?? ""] ?? 1));
}

/** A Go duration flag in milliseconds; 0 means off unless `positive`. */
export function parseDurationFlag(
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
export function parseList(text: string | undefined): string[] | undefined {
  return text
    ?.split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}
