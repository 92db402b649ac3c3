// Preview Services (API-SPEC rule 7): with `previews.enabled`, one Service per non-production branch and,
// with `triggers.onPullRequest`, per open pull request, owned by the parent (controller reference), with
// its template and a source pinned to the branch. A preview whose branch has not moved for `ttl` (counted
// from when this server saw it move, not from the commit's date), whose branch is gone or whose pull
// request closed is deleted; deleting the parent deletes them (garbage collector). The heads' clocks and
// the closed pull requests are kept in the parent's status, so a restart restarts no clock and brings no
// closed pull request's preview back.
import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { branchRef, type Mirrors, type RefSnapshot, repositoryKey } from "../../builder/git";
import type { ApiObject } from "../../sdk/client/types";
import {
  applyDefaults,
  MAX_NAME_LENGTH,
  parseDuration,
  type ServiceSpec,
  withoutSecretName,
} from "../../sdk/schema";
import type { PreviewHeadStatus, PreviewStatus } from "../../sdk/schema/status";
import type { KindCache } from "../cluster";
import type { ControllerLogger } from "../logger";
import { REVISION_HASH_LENGTH } from "../naming";
import { controllerReference, isControlledBy } from "../revision";

/** Labels of a preview Service: its parent's name and the branch (as a label value). */
export const PREVIEW_LABELS = {
  parent: "example.dev/preview-of",
  branch: "example.dev/preview-branch",
} as const;

/** The branch as written (`feature/x`, `refs/pull/1/head`), which a label value cannot always hold. */
export const PREVIEW_BRANCH_ANNOTATION = "example.dev/preview-branch";

const PULL_REQUEST_REF = /^refs\/pull\/(\d+)\/head$/;
const HEADS = "refs/heads/";
const HASH_LENGTH = 8;
/** Room for the `-<10 hex>` of the revisions minted for the preview. */
const MAX_PREVIEW_NAME = MAX_NAME_LENGTH - REVISION_HASH_LENGTH - 1;
const MAX_SLUG = 40;
const MAX_LABEL_VALUE = 63;

interface DesiredPreview {
  name: string;
  /** What the preview's `triggers.productionBranch` says. */
  branch: string;
  /** The label value naming the branch. */
  slug: string;
  pullRequest?: number;
  /** When the server first saw the branch at its head commit, ms since the epoch: the idle clock's start. */
  since: number;
}

/** What the sync writes to the parent's status about its previews. */
export interface PreviewsReport {
  previews: PreviewStatus[];
  heads: PreviewHeadStatus[];
  closedPullRequests: number[];
}

/** One parent's idle clocks: per ref, the head commit and when it was first seen there (ms). */
interface Heads {
  uid: string | undefined;
  byRef: Map<string, { commit: string; since: number }>;
}

function slugOf(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .slice(0, MAX_SLUG)
      .replace(/^-+|-+$/g, "") || "branch"
  );
}

/**
 * `<parent>-<slug of the branch>-<8 hex of parent and branch>`: deterministic, a valid object name, and
 * short enough that the revisions minted for it (`<name>-<10 hex>`) are valid names too.
 */
export function previewName(parent: string, branch: string): string {
  const hash = createHash("sha256").update(`${parent}\0${branch}`).digest("hex").slice(0, HASH_LENGTH);
  const slug = slugOf(branch);
  const room = MAX_PREVIEW_NAME - slug.length - hash.length - 2;
  const prefix = parent.slice(0, room).replace(/[-.]+$/, "");
  return `${prefix}-${slug}-${hash}`;
}

export interface PreviewsOptions {
  services: KindCache;
  mirrors: Mirrors;
  log: ControllerLogger;
  requeue(name: string): void;
}

export class Previews {
  /** Pull requests a `pull_request` event closed, per repository. */
  private readonly closed = new Map<string, Set<number>>();
  /** Per parent: the heads of its preview refs and their idle clocks. */
  private readonly heads = new Map<string, Heads>();
  /** Per parent: the timer that syncs it when its next preview goes idle. */
  private readonly expiries = new Map<string, NodeJS.Timeout>();

  constructor(private readonly options: PreviewsOptions) {}

  /** Records a `pull_request` event's verdict: closed (no preview) or open. */
  pullRequest(url: string, number: number, open: boolean): void {
    const closed = this.closedIn(url);
    if (open) closed.delete(number);
    else closed.add(number);
  }

  /**
   * Creates, updates and deletes the parent's previews as its spec and the repository's refs call for;
   * returns the previews that exist (sorted by name), their heads' clocks and the closed pull requests.
   */
  async reconcile(parent: ApiObject, spec: ServiceSpec, now: number): Promise<PreviewsReport> {
    const { services } = this.options;
    const existing = services.list().filter((object) => isControlledBy(object, parent));
    const git = spec.source.git;
    if (!git?.previews?.enabled) {
      this.forget(parent.metadata.name);
      await this.deleteExcept(parent, existing, new Set());
      return { previews: [], heads: [], closedPullRequests: [] };
    }
    const heads = this.headsOf(parent, git.url);
    const refs = this.options.mirrors.refs(git);
    // Refs unknown (no fetch yet, or it failed): leave the previews and their clocks as they are.
    if (refs === undefined) return this.report(existing.map(statusOf), heads, git.url);
    const desired = this.desired(parent, spec, refs, heads, now);
    await this.deleteExcept(parent, existing, new Set(desired.map((preview) => preview.name)));
    const statuses: PreviewStatus[] = [];
    for (const preview of desired) {
      if (await this.apply(parent, spec, preview)) {
        statuses.push({
          name: preview.name,
          branch: preview.branch,
          ...(preview.pullRequest !== undefined && { pullRequest: preview.pullRequest }),
        });
      }
    }
    this.scheduleExpiry(parent.metadata.name, spec, desired, now);
    return this.report(statuses, heads, git.url, refs);
  }

  forget(parent: string): void {
    this.heads.delete(parent);
    this.stopExpiry(parent);
  }

  private stopExpiry(parent: string): void {
    clearTimeout(this.expiries.get(parent));
    this.expiries.delete(parent);
  }

  private closedIn(url: string): Set<number> {
    const key = repositoryKey(url) ?? url;
    let closed = this.closed.get(key);
    if (!closed) {
      closed = new Set();
      this.closed.set(key, closed);
    }
    return closed;
  }

  /** The parent's clocks; after a restart (or for a new parent of that name), seeded from its status. */
  private headsOf(parent: ApiObject, url: string): Heads {
    const { name, uid } = parent.metadata;
    const known = this.heads.get(name);
    if (known && known.uid === uid) return known;
    const byRef = new Map<string, { commit: string; since: number }>();
    for (const head of recordedHeads(parent.status?.previewHeads)) {
      byRef.set(head.ref, { commit: head.commit, since: Date.parse(head.since) });
    }
    const closed = this.closedIn(url);
    for (const number of recordedNumbers(parent.status?.closedPullRequests)) closed.add(number);
    const heads = { uid, byRef };
    this.heads.set(name, heads);
    return heads;
  }

  /** The report for status; with `refs`, only closed pull requests whose ref remains are kept. */
  private report(previews: PreviewStatus[], heads: Heads, url: string, refs?: RefSnapshot): PreviewsReport {
    const closed = [...this.closedIn(url)].filter(
      (number) => refs === undefined || refs.has(`refs/pull/${number}/head`),
    );
    return {
      previews: previews.sort(byName),
      heads: [...heads.byRef]
        .map(([ref, { commit, since }]) => ({ ref, commit, since: new Date(since).toISOString() }))
        .sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)),
      closedPullRequests: closed.sort((a, b) => a - b),
    };
  }

  private async deleteExcept(
    parent: ApiObject,
    existing: readonly ApiObject[],
    wanted: ReadonlySet<string>,
  ): Promise<void> {
    for (const object of existing) {
      if (wanted.has(object.metadata.name)) continue;
      await this.options.services.delete(object.metadata.name, object.metadata.uid);
      this.options.log.info(
        { service: parent.metadata.name, preview: object.metadata.name },
        "deleted preview",
      );
    }
  }

  close(): void {
    for (const timer of this.expiries.values()) clearTimeout(timer);
    this.expiries.clear();
  }

  /** The previews due now; moves `heads` along with the refs (a new head restarts its clock). */
  private desired(
    parent: ApiObject,
    spec: ServiceSpec,
    refs: RefSnapshot,
    heads: Heads,
    now: number,
  ): DesiredPreview[] {
    const git = spec.source.git;
    if (!git) return [];
    const ttl = git.previews?.ttl === undefined ? undefined : parseDuration(git.previews.ttl);
    const closed = this.closedIn(git.url);
    const production = branchRef(git.triggers.productionBranch);
    const candidates: Omit<DesiredPreview, "since">[] = [];
    for (const ref of refs.keys()) {
      if (ref === production) continue;
      if (ref.startsWith(HEADS)) {
        const branch = ref.slice(HEADS.length);
        candidates.push({
          name: previewName(parent.metadata.name, branch),
          branch,
          slug: labelValue(branch),
        });
        continue;
      }
      const number = Number(PULL_REQUEST_REF.exec(ref)?.[1]);
      if (!git.triggers.onPullRequest || !Number.isSafeInteger(number) || closed.has(number)) continue;
      const key = `pr-${number}`;
      candidates.push({
        name: previewName(parent.metadata.name, key),
        branch: ref,
        slug: key,
        pullRequest: number,
      });
    }
    const seen = new Map<string, { commit: string; since: number }>();
    const desired: DesiredPreview[] = [];
    for (const candidate of candidates) {
      const ref = candidate.pullRequest === undefined ? `${HEADS}${candidate.branch}` : candidate.branch;
      const commit = refs.get(ref)?.commit ?? "";
      const before = heads.byRef.get(ref);
      const since = before?.commit === commit && Number.isFinite(before.since) ? before.since : now;
      seen.set(ref, { commit, since });
      if (ttl === undefined || now - since < ttl) desired.push({ ...candidate, since });
    }
    heads.byRef = seen;
    return desired;
  }

  /** Creates or updates one preview; false when its name is held by a Service the parent does not control. */
  private async apply(parent: ApiObject, spec: ServiceSpec, preview: DesiredPreview): Promise<boolean> {
    const { services, log } = this.options;
    const desired = previewObject(parent, spec, preview);
    const current = services.get(preview.name);
    if (!current) {
      await services.create(desired);
      log.info(
        { service: parent.metadata.name, preview: preview.name, branch: preview.branch },
        "created preview",
      );
      return true;
    }
    if (!isControlledBy(current, parent)) {
      log.warn(
        { service: parent.metadata.name, preview: preview.name, branch: preview.branch },
        "no preview: a Service of that name exists and this Service does not control it",
      );
      return false;
    }
    // Compared as written: the preview's secret values in place, the server's Secret name left out.
    const written = await services.withSecrets(current);
    const sameMetadata =
      isDeepStrictEqual(current.metadata.labels, desired.metadata.labels) &&
      isDeepStrictEqual(withoutSecretName(current.metadata.annotations), desired.metadata.annotations);
    if (!sameMetadata || !isDeepStrictEqual(written.spec, desired.spec)) {
      await services.replace({
        ...current,
        metadata: {
          ...current.metadata,
          labels: desired.metadata.labels,
          annotations: desired.metadata.annotations,
        },
        spec: desired.spec,
      });
    }
    return true;
  }

  /** Syncs the parent again when its next preview reaches `ttl` without a new commit. */
  private scheduleExpiry(
    parent: string,
    spec: ServiceSpec,
    desired: readonly DesiredPreview[],
    now: number,
  ): void {
    this.stopExpiry(parent);
    const ttlText = spec.source.git?.previews?.ttl;
    const ttl = ttlText === undefined ? undefined : parseDuration(ttlText);
    if (ttl === undefined || desired.length === 0) return;
    const next = Math.min(...desired.map((preview) => preview.since + ttl - now));
    const timer = setTimeout(() => this.options.requeue(parent), Math.max(0, next) + 1);
    timer.unref();
    this.expiries.set(parent, timer);
  }
}

/** The heads an earlier start wrote to status (anything malformed is left out). */
function recordedHeads(value: unknown): PreviewHeadStatus[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (entry): entry is PreviewHeadStatus =>
      typeof entry?.ref === "string" && typeof entry.commit === "string" && typeof entry.since === "string",
  );
}

/** The closed pull requests an earlier start wrote to status. */
function recordedNumbers(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((entry): entry is number => Number.isSafeInteger(entry)) : [];
}

function labelValue(branch: string): string {
  return slugOf(branch).slice(0, MAX_LABEL_VALUE);
}

/**
 * The parent label's value: the parent's name when it fits a label value (63 characters), else its head
 * and a hash of the whole name. The owner reference, not the label, is what ties a preview to its parent.
 */
export function parentLabel(parent: string): string {
  if (parent.length <= MAX_LABEL_VALUE) return parent;
  const hash = createHash("sha256").update(parent).digest("hex").slice(0, HASH_LENGTH);
  return `${parent.slice(0, MAX_LABEL_VALUE - HASH_LENGTH - 1).replace(/[-.]+$/, "")}-${hash}`;
}

function statusOf(object: ApiObject): PreviewStatus {
  const source = object.spec.source as ServiceSpec["source"] | undefined;
  const branch = source?.git?.triggers.productionBranch ?? "";
  const number = Number(PULL_REQUEST_REF.exec(branch)?.[1]);
  return { name: object.metadata.name, branch, ...(Number.isSafeInteger(number) && { pullRequest: number }) };
}

const byName = (a: PreviewStatus, b: PreviewStatus) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The parent's spec with the source pinned to the branch, previews off and no paths filter. */
function previewObject(parent: ApiObject, spec: ServiceSpec, preview: DesiredPreview): ApiObject {
  const { liveRevision: _pinnedForParent, source, ...rest } = spec;
  const git = source.git;
  if (!git) throw new Error("a preview needs a git source");
  const { previews: _off, triggers: _parentTriggers, ...pinned } = git;
  const previewSpec = applyDefaults("Service", {
    ...rest,
    source: { git: { ...pinned, triggers: { productionBranch: preview.branch } } },
  }) as Record<string, unknown>;
  return {
    apiVersion: parent.apiVersion,
    kind: "Service",
    metadata: {
      name: preview.name,
      labels: {
        [PREVIEW_LABELS.parent]: parentLabel(parent.metadata.name),
        [PREVIEW_LABELS.branch]: preview.slug,
      },
      annotations: { [PREVIEW_BRANCH_ANNOTATION]: preview.branch },
      ownerReferences: [controllerReference(parent)],
    },
    spec: previewSpec,
  };
}
