// Which repository URLs the server may fetch (`--git-allow`). Parsing them, and the one spelling per
// repository that lets a webhook's `clone_url`, `html_url` or path find the Services that name it some other
// way, live in sdk/shared/repository-url.ts, which the policy pack's allowed-sources policy reads too.
// Nothing here throws: a bad URL in one object or one delivery is that object's or that delivery's problem,
// never one of a loop over all of them.
import { locate, repositoryKey } from "../../sdk/shared/repository-url";
import { isLoopbackHost } from "../oci";
import { realPathOf } from "./real-path";

export { repositoryKey };

/** Where a Service names its repository, for messages. */
export const URL_FIELD = "spec.source.git.url";

/**
 * What is wrong with `text` as a repository (a malformed `file://` URL: "names the host ..."), else undefined:
 * a delivery naming one is a 400. A Service naming one fails the schema's `git-file-url` rule.
 */
export function malformedUrl(text: string): string | undefined {
  const location = locate(text);
  return location?.kind === "malformed" ? location.problem : undefined;
}

/** The host a git URL names (`host:port`, lower case); `local` for paths and file:// URLs. */
export function gitHost(url: string): string {
  const scp = /^[^/:@]+@([^/:]+):/.exec(url);
  if (scp?.[1]) return scp[1].toLowerCase();
  try {
    const parsed = new URL(url);
    return parsed.protocol === "file:" || parsed.host === "" ? "local" : parsed.host.toLowerCase();
  } catch {
    return "local";
  }
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
