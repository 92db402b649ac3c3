/**
 * Go duration strings, as the production API (a Go server) reads them: a sequence of decimal numbers with
 * a unit each ("30s", "1m30s", "250ms", "1.5h"), an optional sign, or a bare "0".
 */
export const DURATION_EXAMPLES = ["30s", "1m30s", "250ms"] as const;

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu, which Go accepts too
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** Go stores durations as int64 nanoseconds; longer ones do not parse there, so not here either. */
const MAX_MS = 9_223_372_036_854.775;

const COMPONENT = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Non-negative Go durations as a JSON-schema `pattern` (Go's RE2 and ECMAScript read it alike), for settings
 * that Pulumi validates before running a policy. Durations too long for Go's int64 still pass it:
 * `parseDuration` catches those.
 */
export const DURATION_PATTERN = `^(?:0|(?:(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:${Object.keys(UNIT_MS).join("|")}))+)$`;

/** Go duration -> milliseconds (may be fractional or negative); undefined if malformed. */
export function parseDuration(text: string): number | undefined {
  if (typeof text !== "string") return undefined;
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  let total = 0;
  COMPONENT.lastIndex = 0;
  while (COMPONENT.lastIndex < rest.length) {
    const match = COMPONENT.exec(rest);
    if (match === null) return undefined;
    const [, whole = "", fraction = "", unit = ""] = match;
    if (whole === "" && fraction === "") return undefined;
    const scale = UNIT_MS[unit];
    if (scale === undefined) return undefined;
    total += Number(`${whole || "0"}.${fraction || "0"}`) * scale;
  }
  return total > MAX_MS ? undefined : sign * total;
}
