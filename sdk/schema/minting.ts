// Whether a change of a Service mints a new ServiceRevision, and why: the one place that knows it. The
// controller names a revision `<service>-<10 hex>` from a hash of the template (`templateIdentity`) and the
// resolved bundle (repo and digest), and reuses an equal revision; so a change mints when the template or
// the bundle changes. The provider's preview (revision outputs unknown exactly when a change mints) and the
// pull-request report (`exampledev-policy-report`: the Services that will mint, and why) both ask here.
import { isRecord } from "../shared/records";
import { containsUnknown, isUnknown, UNKNOWN } from "./sentinel";

/**
 * `mints`: `up` mints a revision (and, unless `spec.liveRevision` pins one, promotes it). `may-mint`: it
 * depends on what only the controller learns at `up` (where a tag points then, what a new build of a git
 * source pushes, a value another resource computes). `none`: the revisions stay as they are.
 */
export type MintOutcome = "mints" | "may-mint" | "none";

export interface MintReason {
  outcome: Exclude<MintOutcome, "none">;
  /** The path that changed (`spec.template.spec.env[0].value`, `spec.source.oci.digest`); "" for a new Service. */
  path: string;
  /** For people: what changed, and why it mints. */
  message: string;
}

export interface MintDecision {
  outcome: MintOutcome;
  reasons: MintReason[];
}

/** The part of a Service (its inputs, or its object) the decision reads. */
export interface ServiceShape {
  metadata?: unknown;
  spec?: unknown;
}

/** What the Service runs now, from its status, when known: it makes some decisions exact. */
export interface CurrentBundle {
  /** The digest of the bundle the latest revision runs (`status.resolvedBundle.digest`, `status.lastBuild.digest`). */
  digest?: string | undefined;
}

type Path = (string | number)[];
type Json = Record<string, unknown>;

const NONE: MintDecision = { outcome: "none", reasons: [] };
/** A template change lists at most this many paths; the rest are counted. */
const MAX_TEMPLATE_PATHS = 5;

/**
 * The template as it names revisions (the controller's identity): its spec, and its metadata only when it
 * carries a label or an annotation (empty metadata counts as none).
 */
export function templateIdentity(template: unknown): unknown {
  if (!isRecord(template)) return template;
  const { metadata, spec } = template;
  if (isUnknown(metadata)) return { metadata, spec };
  const meta = isRecord(metadata) ? metadata : {};
  const filled = (value: unknown) => isUnknown(value) || (isRecord(value) && Object.keys(value).length > 0);
  return filled(meta.labels) || filled(meta.annotations) ? { metadata, spec } : { spec };
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `spec.template.spec.env[0].value`; keys that are not identifiers in brackets: `labels["app.example.dev/tier"]`. */
export function jsonPath(path: readonly (string | number)[]): string {
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      if (!IDENTIFIER.test(segment)) return `[${JSON.stringify(segment)}]`;
      return index === 0 ? segment : `.${segment}`;
    })
    .join("");
}

/** The leaf paths where `before` and `after` differ (objects member by member, lists item by item). */
function changedPaths(before: unknown, after: unknown, path: Path, found: Path[]): void {
  if (equal(before, after)) return;
  // An object added or removed: its leaves are what changed.
  if (isRecord(before) && after === undefined) {
    changedPaths(before, {}, path, found);
    return;
  }
  if (before === undefined && isRecord(after)) {
    changedPaths({}, after, path, found);
    return;
  }
  if (isRecord(before) && isRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)]))
      changedPaths(before[key], after[key], [...path, key], found);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let index = 0; index < Math.max(before.length, after.length); index++)
      changedPaths(before[index], after[index], [...path, index], found);
    return;
  }
  found.push(path);
}

/** Equal as JSON: the order of keys does not matter, undefined members count as absent. */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => equal(item, b[index]));
  if (isRecord(a) && isRecord(b)) {
    const keys = (value: Json) => Object.keys(value).filter((key) => value[key] !== undefined);
    const left = keys(a);
    return left.length === keys(b).length && left.every((key) => equal(a[key], b[key]));
  }
  return false;
}

const at = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((current, key) => (isRecord(current) ? current[key] : undefined), value);

const short = (digest: unknown) =>
  typeof digest === "string" && digest.startsWith("sha256:") ? `${digest.slice(0, 19)}…` : String(digest);

/** Whether a write of the Service happens at all: its labels, annotations or spec differ. */
export function isWritten(before: ServiceShape, after: ServiceShape): boolean {
  return (
    !equal(at(before.metadata, "labels"), at(after.metadata, "labels")) ||
    !equal(at(before.metadata, "annotations"), at(after.metadata, "annotations")) ||
    !equal(before.spec, after.spec)
  );
}

function templateReasons(before: unknown, after: unknown): MintReason[] {
  const found: Path[] = [];
  changedPaths(templateIdentity(before), templateIdentity(after), ["spec", "template"], found);
  if (found.length === 0) return [];
  const unknownOnly = found.every((path) => containsUnknown(valueAtPath(after, path.slice(2))));
  const shown = found.slice(0, MAX_TEMPLATE_PATHS).map(jsonPath);
  const more = found.length > shown.length ? ` and ${found.length - shown.length} more` : "";
  return [
    {
      outcome: unknownOnly ? "may-mint" : "mints",
      path: shown[0] ?? "spec.template",
      message: unknownOnly
        ? `${shown.join(", ")}${more}: computed from another resource, known at up; a template that differs mints a revision`
        : `${shown.join(", ")}${more} changed: a new template mints a revision`,
    },
  ];
}

function valueAtPath(value: unknown, path: Path): unknown {
  let current = value;
  for (const segment of path) {
    if (isUnknown(current)) return current;
    if (!isRecord(current) && !Array.isArray(current)) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** The fields of a git source whose change starts a new build (the controller's build fingerprint). */
const GIT_BUILD_FIELDS: readonly string[][] = [
  ["url"],
  ["credentialsRef"],
  ["triggers", "productionBranch"],
  ["build", "builder"],
  ["build", "command"],
  ["build", "env"],
  ["build", "rootDir"],
  ["build", "output", "tag"],
  ["build", "output", "credentialsRef"],
  ["build", "output", "credentials"],
];

function sourceReasons(
  before: unknown,
  after: unknown,
  current: CurrentBundle,
  written: boolean,
): MintReason[] {
  const oldOci = at(before, "oci");
  const newOci = at(after, "oci");
  const oldGit = at(before, "git");
  const newGit = at(after, "git");
  if (isUnknown(after) || isUnknown(newOci) || isUnknown(newGit)) {
    return [{ outcome: "may-mint", path: "spec.source", message: "spec.source: known at up" }];
  }
  if (isRecord(newOci) !== isRecord(oldOci)) {
    const kind = (value: unknown) => (isRecord(value) ? "oci" : "git");
    return [
      {
        outcome: "mints",
        path: "spec.source",
        message: `spec.source: ${kind(oldOci)} → ${kind(newOci)}: another bundle mints a revision`,
      },
    ];
  }
  if (isRecord(newOci)) return ociReasons(oldOci as Json, newOci, current, written);
  if (isRecord(newGit)) return gitReasons(isRecord(oldGit) ? oldGit : {}, newGit);
  return [];
}

function ociReasons(before: Json, after: Json, current: CurrentBundle, written: boolean): MintReason[] {
  const reasons: MintReason[] = [];
  const unknownAt = (key: string) => isUnknown(after[key]);
  if (!equal(before.repo, after.repo)) {
    reasons.push({
      outcome: unknownAt("repo") ? "may-mint" : "mints",
      path: "spec.source.oci.repo",
      message: unknownAt("repo")
        ? "spec.source.oci.repo: computed from another resource, known at up"
        : `spec.source.oci.repo: ${String(before.repo)} → ${String(after.repo)}: another bundle mints a revision`,
    });
  }
  const newDigest = after.digest;
  const oldDigest = before.digest;
  const tag = typeof after.tag === "string" ? after.tag : "latest";
  if (newDigest !== undefined && newDigest !== "") {
    if (isUnknown(newDigest)) {
      reasons.push({
        outcome: "may-mint",
        path: "spec.source.oci.digest",
        message: "spec.source.oci.digest: computed from another resource (a push, a build), known at up",
      });
    } else if (oldDigest !== undefined && oldDigest !== "") {
      if (oldDigest !== newDigest) {
        reasons.push({
          outcome: "mints",
          path: "spec.source.oci.digest",
          message: `spec.source.oci.digest: ${short(oldDigest)} → ${short(newDigest)}: a new bundle mints a revision`,
        });
      }
    } else if (current.digest !== newDigest) {
      // From a tag to a digest: the same artifact the tag resolved to mints nothing.
      reasons.push({
        outcome: current.digest === undefined ? "may-mint" : "mints",
        path: "spec.source.oci.digest",
        message:
          current.digest === undefined
            ? `spec.source.oci.digest: pinned to ${short(newDigest)} (was tag ${String(before.tag ?? "latest")}): mints unless the tag resolved to it`
            : `spec.source.oci.digest: pinned to ${short(newDigest)}, the tag ran ${short(current.digest)}: a new bundle mints a revision`,
      });
    }
    return reasons;
  }
  // A tag: the controller resolves it again on every write of the Service, so a write mints when the tag
  // moved since; where it points at up is the registry's answer then, not the program's.
  const hadDigest = oldDigest !== undefined && oldDigest !== "";
  const oldTag = typeof before.tag === "string" ? before.tag : "latest";
  if (hadDigest || oldTag !== tag) {
    reasons.push({
      outcome: "may-mint",
      path: "spec.source.oci.tag",
      message: hadDigest
        ? `spec.source.oci.tag: ${tag} instead of digest ${short(oldDigest)}: resolved at up, mints unless it points at that digest`
        : `spec.source.oci.tag: ${oldTag} → ${tag}: resolved at up, mints unless it points at the same digest`,
    });
  } else if (written && reasons.length === 0) {
    reasons.push({
      outcome: "may-mint",
      path: "spec.source.oci.tag",
      message: `spec.source.oci.tag: ${tag} is resolved again when the Service is written: mints if it moved${current.digest ? ` from ${short(current.digest)}` : ""}`,
    });
  }
  return reasons;
}

function gitReasons(before: Json, after: Json): MintReason[] {
  const reasons: MintReason[] = [];
  const outputRepo = ["build", "output", "repo"];
  if (!equal(at(before, ...outputRepo), at(after, ...outputRepo))) {
    reasons.push({
      outcome: "mints",
      path: "spec.source.git.build.output.repo",
      message: "spec.source.git.build.output.repo changed: the next build's bundle mints a revision",
    });
  }
  const changed = GIT_BUILD_FIELDS.filter((path) => !equal(at(before, ...path), at(after, ...path)));
  if (changed.length > 0) {
    const paths = changed.map((path) => jsonPath(["spec", "source", "git", ...path]));
    const branch = String(at(after, "triggers", "productionBranch") ?? "main");
    reasons.push({
      outcome: "may-mint",
      path: paths[0] ?? "spec.source.git",
      message: `${paths.join(", ")} changed: branch ${branch} is built again, and a bundle with another digest mints a revision`,
    });
  }
  return reasons;
}

/**
 * Whether the change from `before` (the Service as it is: state's inputs or outputs; undefined when the
 * Service is new) to `after` (the program's checked inputs) mints a revision, and why. `current` tells what
 * the Service runs now, when status is at hand. A commit pushed to a git source's branch is built and minted
 * by the controller whenever it sees it, `up` or not: that is not a change of the Service.
 */
export function mintDecision(
  before: ServiceShape | undefined,
  after: ServiceShape,
  current: CurrentBundle = {},
): MintDecision {
  if (before === undefined) {
    return {
      outcome: "mints",
      reasons: [{ outcome: "mints", path: "", message: "a new Service mints its first revision" }],
    };
  }
  if (isUnknown(after.spec)) {
    return {
      outcome: "may-mint",
      reasons: [{ outcome: "may-mint", path: "spec", message: "spec: known at up" }],
    };
  }
  const written = isWritten(before, after);
  if (!written) return NONE;
  const reasons = [
    ...templateReasons(at(before.spec, "template"), at(after.spec, "template")),
    ...sourceReasons(at(before.spec, "source"), at(after.spec, "source"), current, written),
  ];
  if (reasons.length === 0) return NONE;
  return { outcome: reasons.some((reason) => reason.outcome === "mints") ? "mints" : "may-mint", reasons };
}

/** The digest a Service's latest revision runs, from its status: a tag's resolution, or a git source's last build. */
export function currentBundle(status: unknown): CurrentBundle {
  const digest = at(status, "resolvedBundle", "digest") ?? at(status, "lastBuild", "digest");
  return typeof digest === "string" ? { digest } : {};
}

export interface RevisionNames {
  latestRevision?: string | undefined;
  liveRevision?: string | undefined;
}

/**
 * The revision outputs a preview shows: the current ones when nothing mints; `UNKNOWN` (computed) for the
 * latest when the change mints or may mint. The live revision is `spec.liveRevision` when it pins one, else
 * the latest.
 */
export function previewRevisions(
  decision: MintDecision,
  current: RevisionNames,
  spec: unknown,
): RevisionNames {
  const latestRevision = decision.outcome === "none" ? current.latestRevision : UNKNOWN;
  const pinned = at(spec, "liveRevision");
  const liveRevision = typeof pinned === "string" && pinned !== "" ? pinned : latestRevision;
  return { latestRevision, liveRevision };
}
