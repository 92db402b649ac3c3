// `WWW-Authenticate` challenges (RFC 9110 section 11.6.1) as registries send them:
// `Basic realm="..."` or `Bearer realm="...",service="...",scope="repository:team/app:pull"`.
export interface Challenge {
  /** Lower-cased: `basic`, `bearer`, ... */
  scheme: string;
  /** Parameter names lower-cased, values unquoted. */
  params: Record<string, string>;
}

// One `name=value` or `name="quoted value"` with its trailing comma; sticky, so parameters must be adjacent.
const PARAM_SOURCE = /\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*(?:,|$)/
  .source;

/** The first challenge of the header; undefined when there is none. */
export function parseChallenge(value: string | undefined): Challenge | undefined {
  const match = /^\s*([A-Za-z][A-Za-z0-9-]*)(?:\s+|$)/.exec(value ?? "");
  if (!value || !match?.[1]) return undefined;
  const params: Record<string, string> = {};
  const paramPattern = new RegExp(PARAM_SOURCE, "y");
  paramPattern.lastIndex = match[0].length;
  for (let param = paramPattern.exec(value); param; param = paramPattern.exec(value)) {
    const [, name = "", quoted, token] = param;
    params[name.toLowerCase()] = quoted !== undefined ? quoted.replace(/\\(.)/g, "$1") : (token ?? "");
    if (paramPattern.lastIndex >= value.length) break;
  }
  return { scheme: match[1].toLowerCase(), params };
}
