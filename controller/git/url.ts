// Repository URLs, parsed here and nowhere else: which ones the server may fetch (`--git-allow`), and
// one spelling per repository so that a webhook's `clone_url`, `html_url` or path finds the Services that
// name it some other way. Nothing here throws: a bad URL in one object or one delivery is that object's
// or that delivery's problem, never one of a loop over all of them.
import { isAbsolute, normalize } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isLoopbackHost } from "../oci";
import { realPathOf } from "./real-path";

/** Where a Service names its repository, for messages and admission causes. */
export const URL_FIELD = "spec.source.git.url";

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

/** Why admission refuses `text` (a malformed `file://` URL: "names the host ..."), else undefined. */
export function malformedUrl(text: string): string | undefined {
  const location = locate(text);
  return location?.kind === "malformed" ? location.problem : undefined;
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

/** What git fetches (a local repository's real path, so a symlink swapped later changes nothing), or why not. */
export type Judgement = { ok: true; source: string } | { ok: false; message: string };

export class GitAllowList {
  /** The prefixes that are local paths (or `file://` URLs), compared by real path. */
  private readonly localPrefixes: readonly string[];

  /**
   * @param texts URL prefixes from `--git-allow`; undefined allows local paths, `file://` and
   * loopback hosts over http(s)/git.
   */
  constructor(private readonly texts?: readonly string[]) {
    this.localPrefixes = (texts ?? []).flatMap((text) => {
      const location = locate(text);
      return location?.kind === "local" ? [location.path] : [];
    });
  }

  /** Why the server will not fetch `text` (a sentence naming the field and the fix), or undefined. */
  refusal(text: string, fieldPath: string): string | undefined {
    const judgement = this.judge(text, fieldPath);
    return judgement.ok ? undefined : judgement.message;
  }

  /** Judged now, with the file system as it is: called again right before each fetch. */
  judge(text: string, fieldPath: string): Judgement {
    const location = locate(text);
    if (!location) {
      return refused(
        `${fieldPath} "${text}" is not a repository this server can fetch: use an absolute path, a file:// URL, or an http(s):// or git:// URL`,
      );
    }
    if (location.kind === "malformed") return refused(`${fieldPath} "${text}" ${location.problem}`);
    if (location.kind === "remote") {
      if (location.url.username || location.url.password) {
        return refused(
          `${fieldPath} carries credentials in the URL, which would show in status and logs: remove them`,
        );
      }
      if (this.allowsRemote(location.url)) return { ok: true, source: text };
      return refused(this.notAllowed(fieldPath, location.url.href));
    }
    const real = realPathOf(location.path);
    if (this.allowsLocal(real)) return { ok: true, source: real };
    if (real === location.path) return refused(this.notAllowed(fieldPath, text));
    return refused(
      `${fieldPath} "${text}" leads to ${real} (symlinks followed), which is not allowed: ${this.allowed()}; name a repository whose real path is under an allowed prefix, or start the server with --git-allow naming a prefix of ${real}`,
    );
  }

  private notAllowed(fieldPath: string, shown: string): string {
    return `${fieldPath} "${shown}" is not allowed: ${this.allowed()}; start the server with --git-allow naming a prefix of this URL to fetch it`;
  }

  private allowed(): string {
    return this.texts
      ? `the server allows only URLs starting with ${this.texts.join(", ")} (--git-allow)`
      : "by default the server fetches only local paths, file:// URLs and loopback hosts";
  }

  private allowsRemote(url: URL): boolean {
    if (!this.texts) return isLoopbackHost(url.host);
    // Compared with the normalised spelling, so `..` cannot climb out of an allowed path.
    return this.texts.some((prefix) => startsAtBoundary(url.href, prefix));
  }

  /** `real` is a real path: compared with each local prefix's real path, as the prefix may be a link too. */
  private allowsLocal(real: string): boolean {
    if (!this.texts) return true;
    return this.localPrefixes.some((prefix) => startsAtBoundary(real, realPathOf(prefix)));
  }
}

function refused(message: string): Judgement {
  return { ok: false, message };
}

/** A prefix ends at a boundary: `https://git.example.dev` must not allow `https://git.example.dev.evil`. */
function startsAtBoundary(text: string, prefix: string): boolean {
  if (!text.startsWith(prefix)) return false;
  const next = text.charAt(prefix.length);
  return prefix.endsWith("/") || next === "" || next === "/";
}
