// Which repository URLs the server may fetch (`--git-allow`), and one spelling per repository so that a
// webhook's `clone_url`, `html_url` or path finds the Services that name it some other way.
import { isAbsolute, normalize } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isLoopbackHost } from "../oci";

const REMOTE_PROTOCOLS: ReadonlySet<string> = new Set(["http:", "https:", "git:"]);

/** What `git` is given: a local path or a URL; undefined when the text is neither. */
export type RepositoryLocation = { kind: "local"; path: string } | { kind: "remote"; url: URL };

export function locate(text: string): RepositoryLocation | undefined {
  if (isAbsolute(text)) return { kind: "local", path: normalize(text) };
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol === "file:") return { kind: "local", path: normalize(fileURLToPath(url)) };
  return REMOTE_PROTOCOLS.has(url.protocol) ? { kind: "remote", url } : undefined;
}

/**
 * The repository's identity: `file://` + path for local ones, `host/path` (any scheme) for remote ones,
 * without a trailing `.git` or `/`; the host lower-cased, the path kept as written.
 */
export function repositoryKey(text: string): string | undefined {
  const location = locate(text);
  if (!location) return undefined;
  const path = location.kind === "local" ? location.path : location.url.pathname;
  const trimmed = path.replace(/\/+$/, "").replace(/\.git$/, "");
  return location.kind === "local"
    ? pathToFileURL(trimmed).href
    : `${location.url.host.toLowerCase()}${trimmed}`;
}

export class GitAllowList {
  /**
   * @param prefixes URL prefixes from `--git-allow`; undefined allows local paths, `file://` and
   * loopback hosts over http(s)/git.
   */
  constructor(private readonly prefixes?: readonly string[]) {}

  /** Why the server will not fetch `text` (a sentence naming the field and the fix), or undefined. */
  refusal(text: string, fieldPath: string): string | undefined {
    const location = locate(text);
    if (!location) {
      return `${fieldPath} "${text}" is not a repository this server can fetch: use an absolute path, a file:// URL, or an http(s):// or git:// URL`;
    }
    if (location.kind === "remote" && (location.url.username || location.url.password)) {
      return `${fieldPath} carries credentials in the URL, which would show in status and logs: remove them`;
    }
    if (this.allows(location)) return undefined;
    const allowed = this.prefixes
      ? `the server allows only URLs starting with ${this.prefixes.join(", ")} (--git-allow)`
      : "by default the server fetches only local paths, file:// URLs and loopback hosts";
    return `${fieldPath} "${location.kind === "remote" ? location.url.href : text}" is not allowed: ${allowed}; start the server with --git-allow naming a prefix of this URL to fetch it`;
  }

  private allows(location: RepositoryLocation): boolean {
    if (!this.prefixes) return location.kind === "local" || isLoopbackHost(location.url.host);
    // Compared with the normalised spelling, so `..` cannot climb out of an allowed directory.
    const url = location.kind === "local" ? pathToFileURL(location.path).href : location.url.href;
    return this.prefixes.some((prefix) => {
      const candidate = isAbsolute(prefix) ? pathToFileURL(prefix).href : prefix;
      if (!url.startsWith(candidate)) return false;
      // A prefix ends at a boundary: `https://git.example.dev` must not allow `https://git.example.dev.evil`.
      const next = url.charAt(candidate.length);
      return candidate.endsWith("/") || next === "" || next === "/";
    });
  }
}
