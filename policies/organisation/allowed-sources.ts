import picomatch from "picomatch";
import { formatPath, type KindName, type PathSegment } from "../../sdk/schema";
import { repositoryKey } from "../../sdk/shared/repository-url";
import { isKnownName, valueAt } from "../resources";
import { globList } from "../settings";
import { organisationPolicy } from "./organisation-policy";

interface Settings {
  ociRepositories?: string[];
  gitRepositories?: string[];
}

type SourceKind = "oci" | "git";

/** Where each kind names the code it runs: OCI repositories (`host/path`) and git repository URLs. */
const SOURCE_FIELDS: Readonly<Record<KindName, readonly { path: PathSegment[]; source: SourceKind }[]>> = {
  Proxy: [],
  Service: [
    { path: ["spec", "source", "oci", "repo"], source: "oci" },
    { path: ["spec", "source", "git", "url"], source: "git" },
    // Builds push there and revisions run from there, so it is as much a source as the repository.
    { path: ["spec", "source", "git", "build", "output", "repo"], source: "oci" },
  ],
  ServiceRevision: [{ path: ["spec", "bundle", "repo"], source: "oci" }],
};

const SETTING: Readonly<Record<SourceKind, keyof Settings>> = {
  oci: "ociRepositories",
  git: "gitRepositories",
};

/** The `host/path` a pattern is matched against: the OCI repo as written, a git URL as the server keys it. */
function matchedText(source: SourceKind, value: string): string | undefined {
  return source === "oci" ? value : repositoryKey(value);
}

function problem(source: SourceKind, value: string, patterns: readonly string[]): string | undefined {
  const setting = SETTING[source];
  const text = matchedText(source, value);
  if (text === undefined) {
    return `${JSON.stringify(value)} is not a repository URL the patterns of allowed-sources.${setting} can match (http, https or git URL, or a local path); use such a URL`;
  }
  if (picomatch.isMatch(text, [...patterns])) return undefined;
  const allowed =
    patterns.length === 0
      ? `allowed-sources.${setting} is empty, so no ${source} source is allowed`
      : `${JSON.stringify(text)} matches none of allowed-sources.${setting} (${patterns.map((pattern) => JSON.stringify(pattern)).join(", ")})`;
  return `${allowed}; use a repository the organisation allows, or ask the platform team to add one to the policy config`;
}

export const allowedSources = organisationPolicy<Settings>({
  name: "allowed-sources",
  description:
    "Services and ServiceRevisions run code only from the organisation's own OCI and git repositories, so a pull request cannot deploy an artifact from a registry or repository nobody reviews or scans.",
  kinds: ["Service", "ServiceRevision"],
  configSchema: {
    properties: {
      ociRepositories: globList(
        'Glob patterns over OCI repositories as host/path (such as "registry.corp.example/team/**") that spec.source.oci.repo, spec.source.git.build.output.repo and a ServiceRevision\'s spec.bundle.repo must match. Unset: OCI repositories are not restricted; empty: none is allowed.',
      ),
      gitRepositories: globList(
        'Glob patterns over git repositories as host/path, the URL without scheme, credentials or a trailing .git (such as "git.corp.example/**"), that spec.source.git.url must match. Unset: git repositories are not restricted; empty: none is allowed.',
      ),
    },
  },
  severity: "high",
  fix: "Take the artifact or repository from one of the registries and git hosts the policy config allows (ociRepositories, gitRepositories), or ask the platform team to allow it.",
  remediation:
    "none: another registry or repository holds another artifact, which only the author can choose",
  check: (kind, props, settings) =>
    SOURCE_FIELDS[kind].flatMap(({ path, source }) => {
      const patterns = settings[SETTING[source]];
      const value = valueAt(props, path);
      if (patterns === undefined || !isKnownName(value)) return [];
      const found = problem(source, value, patterns);
      return found === undefined ? [] : [`${formatPath(path)}: ${found}`];
    }),
});
