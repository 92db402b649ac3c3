// Where a BundleRef's manifest lives: registry host, repository path, and the URL scheme to use.
// The formats of `repo` and `tag` are admission's job (sdk/schema); this only takes them apart.
import { isIPv4 } from "node:net";
import { CONDITION_REASONS } from "../../sdk/schema/status";
import { ResolutionFailure } from "./failure";

const { InvalidSource } = CONDITION_REASONS.Accepted;

export interface Repository {
  /** `host[:port]` as written in the repo. */
  host: string;
  /** Repository name inside the registry, e.g. `team/app`. */
  path: string;
}

// Characters of a host name, IPv4/IPv6 address and port: no user info, query or fragment can slip in.
const HOST_CHARACTERS = /^[A-Za-z0-9.:[\]-]+$/;

/** Splits `<registry_host>/<path>`; an InvalidSource failure names the field and the expected form. */
export function parseRepository(repo: string, fieldPath: string): Repository {
  const slash = repo.indexOf("/");
  const host = repo.slice(0, Math.max(slash, 0));
  const path = repo.slice(slash + 1);
  if (slash <= 0 || path === "" || !HOST_CHARACTERS.test(host) || !URL.canParse(registryBaseUrl(host))) {
    throw new ResolutionFailure(
      InvalidSource,
      `${fieldPath}.repo "${repo}" is not an OCI repository: use <registry_host>/<path>, e.g. registry.example.dev/team/app`,
      false,
    );
  }
  return { host, path };
}

/** The manifest URL of a tag; every path segment is escaped, so the tag cannot change the path. */
export function manifestUrl({ host, path }: Repository, tag: string): URL {
  const name = path.split("/").map(encodeURIComponent).join("/");
  return new URL(`${registryBaseUrl(host)}/v2/${name}/manifests/${encodeURIComponent(tag)}`);
}

function hostname(host: string): string {
  const end = host.startsWith("[") ? host.indexOf("]") + 1 : host.indexOf(":");
  return (end <= 0 ? host : host.slice(0, end)).toLowerCase();
}

/** Loopback means 127.0.0.0/8, `localhost` or `[::1]`: the only hosts reached over plain HTTP. */
export function isLoopbackHost(host: string): boolean {
  const name = hostname(host);
  if (name === "localhost" || name === "[::1]") return true;
  return isIPv4(name) && name.startsWith("127.");
}

/** `http://` for loopback registries, `https://` for every other host. */
export function registryBaseUrl(host: string): string {
  return `${isLoopbackHost(host) ? "http" : "https"}://${host}`;
}
