/**
 * `Warning` response headers (RFC 7234 section 5.5), as the Kubernetes API server sends them for advisory rules,
 * dropped unknown fields and deprecations: `299 - "text"`, one per header line or several joined by commas.
 * Like client-go (`ParseWarningHeaders`, then a `WarningHandler` that sees only code 299), the client parses
 * every answer's headers and hands each 299 warning to the caller's handler; other codes are dropped.
 */

/** One warning of an answer. */
export interface ApiWarning {
  /** Always 299 ("miscellaneous persistent warning") for what reaches a handler. */
  code: number;
  /** The warn-agent: `-` from the Kubernetes API server, else a host[:port] or a pseudonym. */
  agent: string;
  /** The warn-text, unquoted (`\"` and `\\` undone). */
  text: string;
  /** The optional warn-date, unquoted (an HTTP-date), as sent. */
  date?: string;
}

/**
 * Called with each warning of each answer the client gets (errors included), in the order sent, before the
 * call returns or throws. The text comes from the server: it is shown to people as it is, and the API redacts
 * secret values from its warnings as from its errors.
 */
export type WarningHandler = (warning: ApiWarning) => void;

/** The warn-code the Kubernetes API server uses, and the only one a handler is given (client-go's rule). */
export const MISC_PERSISTENT_WARNING = 299;

/**
 * Every well-formed warning in `values` (the `Warning` header lines of one answer; undici gives a string for
 * one line and an array for several). Within a line, a malformed warning ends that line (what follows it cannot
 * be told apart reliably); the next line is parsed afresh. Codes other than 299 are parsed too: `warningsOf`
 * keeps only 299.
 */
export function parseWarningHeaders(values: string | readonly string[] | undefined): ApiWarning[] {
  if (values === undefined) return [];
  const lines = typeof values === "string" ? [values] : values;
  return lines.flatMap(parseWarningLine);
}

/** The 299 warnings of an answer's `Warning` header(s): what a `WarningHandler` is given. */
export function warningsOf(values: string | readonly string[] | undefined): ApiWarning[] {
  return parseWarningHeaders(values).filter((warning) => warning.code === MISC_PERSISTENT_WARNING);
}

/** `warning-value *( OWS "," OWS warning-value )`, skipping empty list elements as RFC 7230 allows. */
function parseWarningLine(line: string): ApiWarning[] {
  const warnings: ApiWarning[] = [];
  let at = 0;
  for (;;) {
    at = skipListSeparators(line, at);
    if (at >= line.length) return warnings;
    const parsed = parseWarningValue(line, at);
    if (parsed === undefined) return warnings;
    warnings.push(parsed.warning);
    at = skipSpaces(line, parsed.end);
    if (at < line.length && line[at] !== ",") return warnings;
  }
}

/** `warn-code SP warn-agent SP warn-text [ SP warn-date ]`, starting at `start`. */
function parseWarningValue(line: string, start: number): { warning: ApiWarning; end: number } | undefined {
  const head = /^([0-9]{3}) ([^\s",]+) /.exec(line.slice(start));
  if (head === null) return undefined;
  const text = parseQuoted(line, start + head[0].length);
  if (text === undefined) return undefined;
  const code = Number(head[1]);
  const agent = head[2] as string;
  // An optional date: one space, then a quoted string. Anything else after the text is left to the caller.
  if (line[text.end] === " " && line[text.end + 1] === '"') {
    const date = parseQuoted(line, text.end + 1);
    if (date === undefined) return undefined;
    return { warning: { code, agent, text: text.value, date: date.value }, end: date.end };
  }
  return { warning: { code, agent, text: text.value }, end: text.end };
}

/** A quoted-string at `start`: its value with quoted-pairs undone, and the index after the closing quote. */
function parseQuoted(line: string, start: number): { value: string; end: number } | undefined {
  if (line[start] !== '"') return undefined;
  let value = "";
  for (let at = start + 1; at < line.length; at++) {
    const char = line[at];
    if (char === '"') return { value, end: at + 1 };
    if (char === "\\") {
      at++;
      if (at >= line.length) return undefined;
      value += line[at];
    } else {
      value += char;
    }
  }
  return undefined;
}

function skipSpaces(line: string, at: number): number {
  while (line[at] === " " || line[at] === "\t") at++;
  return at;
}

function skipListSeparators(line: string, at: number): number {
  while (line[at] === " " || line[at] === "\t" || line[at] === ",") at++;
  return at;
}
