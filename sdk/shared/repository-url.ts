// Repository URLs, parsed here and nowhere else: what `git` is given for a Service's `source.git.url`, and
// one spelling per repository (`host/path`), which the server's webhook matching and the policy pack's
// allowed-sources policy both use. Nothing here throws: a bad URL in one object is that object's problem.
import { isAbsolute, normalize } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REMOTE_PROTOCOLS: ReadonlySet<string> = new Set(["http:", "https:", "git:"]);

/**
 * What `git` is given: a local path or a URL. `malformed` is a `file://` URL that names no path on this
 * machine (a host, an encoded `/`): admission refuses it, whatever the server's `--git-allow`.
 */
export type RepositoryLocation =
  | { kind: "local"; path: string }
  | { kind: "remote"; url: URL }
  | { kind: "malformed"; problem: string };

/** Where `text` leads; undefined when it is neither a path nor a URL of a protocol the server fetches. */
export function locate(text: string): RepositoryLocation | undefined {
  if (isAbsolute(text)) return { kind: "local", path: normalize(text) };
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol === "file:") return localFile(url);
  return REMOTE_PROTOCOLS.has(url.protocol) ? { kind: "remote", url } : undefined;
}

function localFile(url: URL): RepositoryLocation {
  // The URL parser already turned `localhost` into the empty host. git would ignore any other host and
  // read the local path, so `file://server/x` would not mean what it says.
  if (url.host !== "") {
    return {
      kind: "malformed",
      problem: `names the host "${url.host}", but a file:// URL reads this machine's disk: write file://${url.pathname} or file://localhost${url.pathname}, or an http(s):// or git:// URL to reach another host`,
    };
  }
  try {
    return { kind: "local", path: normalize(fileURLToPath(url)) };
  } catch (error) {
    return { kind: "malformed", problem: `is not a file path: ${(error as Error).message}` };
  }
}

/**
 * The repository's identity: `file://` + path for local ones, `host/path` (any scheme) for remote ones,
 * without a trailing `.git` or `/`; the host lower-cased, the path kept as written. Undefined for what
 * `locate` cannot use.
 */
export function repositoryKey(text: string): string | undefined {
  const location = locate(text);
  if (location === undefined || location.kind === "malformed") return undefined;
  const path = location.kind === "local" ? location.path : location.url.pathname;
  const trimmed = path.replace(/\/+$/, "").replace(/\.git$/, "");
  return location.kind === "local"
    ? pathToFileURL(trimmed).href
    : `${location.url.host.toLowerCase()}${trimmed}`;
}
