// Preview Services (API-SPEC rule 7): with `previews.enabled`, one Service per non-production branch and,
// with `triggers.onPullRequest`, per open pull request, owned by the parent (controller reference), with
// its template and a source pinned to the branch. A preview whose head is older than `ttl`, whose branch
// is gone or whose pull request closed is deleted; deleting the parent deletes them (garbage collector).
import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import {
  applyDefaults,
  MAX_NAME_LENGTH,
  parseDuration,
  type ServiceSpec,
  withoutSecretName,
} from "../../sdk/schema";
import type { PreviewStatus } from "../../sdk/schema/status";
import type { KindCache } from "../cluster";
import type { ControllerLogger } from "../logger";
import { REVISION_HASH_LENGTH } from "../naming";
import type { KubeObject } from "../objects";
import { controllerReference, isControlledBy } from "../revision";
import { branchRef, type Mirrors } from "./mirrors";
import { repositoryKey } from "./url";

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
  /** The head commit's committer date, ms since the epoch. */
  headTime: number;
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
  /** Per parent: the timer that syncs it when its next preview goes idle. */
  private readonly expiries = new Map<string, NodeJS.Timeout>();

  constructor(private readonly options: PreviewsOptions) {}

  /** Records a `pull_request` event's verdict: closed (no preview) or open. */
  pullRequest(url: string, number: number, open: boolean): void {
    const key = repositoryKey(url) ?? url;
    const closed = this.closed.get(key) ?? new Set<number>();
    if (open) closed.delete(number);
    else closed.add(number);
    this.closed.set(key, closed);
  }

  /**
   * Creates, updates and deletes the parent's previews as its spec and the repository's refs call for;
   * returns the previews that exist, sorted by name.
   */
  async reconcile(parent: KubeObject, spec: ServiceSpec, now: number): Promise<PreviewStatus[]> {
    const { services } = this.options;
    const existing = services.list().filter((object) => isControlledBy(object, parent));
    const git = spec.source.git;
    const refs = git ? this.options.mirrors.refs(git) : undefined;
    // Refs unknown (no fetch yet, or it failed): leave the previews as they are.
    if (git?.previews?.enabled && refs === undefined) return existing.map(statusOf).sort(byName);
    const desired = git?.previews?.enabled ? this.desired(parent, spec, now) : [];
    const wanted = new Map(desired.map((preview) => [preview.name, preview]));
    for (const object of existing) {
      if (wanted.has(object.metadata.name)) continue;
      await services.delete(object.metadata.name, object.metadata.uid);
      this.options.log.info(
        { service: parent.metadata.name, preview: object.metadata.name },
        "deleted preview",
      );
    }
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
    return statuses.sort(byName);
  }

  forget(parent: string): void {
    clearTimeout(this.expiries.get(parent));
    this.expiries.delete(parent);
  }

  close(): void {
    for (const timer of this.expiries.values()) clearTimeout(timer);
    this.expiries.clear();
  }

  private desired(parent: KubeObject, spec: ServiceSpec, now: number): DesiredPreview[] {
    const git = spec.source.git;
    const refs = git && this.options.mirrors.refs(git);
    if (!git || !refs) return [];
    const ttl = git.previews?.ttl === undefined ? undefined : parseDuration(git.previews.ttl);
    const closed = this.closed.get(repositoryKey(git.url) ?? git.url);
    const production = branchRef(git.triggers.productionBranch);
    const desired: DesiredPreview[] = [];
    for (const [ref, head] of refs) {
      const headTime = head.time * 1000;
      if (ref === production || (ttl !== undefined && now - headTime >= ttl)) continue;
      if (ref.startsWith(HEADS)) {
        const branch = ref.slice(HEADS.length);
        desired.push({
          name: previewName(parent.metadata.name, branch),
          branch,
          slug: labelValue(branch),
          headTime,
        });
        continue;
      }
      const number = Number(PULL_REQUEST_REF.exec(ref)?.[1]);
      if (!git.triggers.onPullRequest || !Number.isSafeInteger(number) || closed?.has(number)) continue;
      const key = `pr-${number}`;
      desired.push({
        name: previewName(parent.metadata.name, key),
        branch: ref,
        slug: key,
        pullRequest: number,
        headTime,
      });
    }
    return desired;
  }

  /** Creates or updates one preview; false when its name is held by a Service the parent does not control. */
  private async apply(parent: KubeObject, spec: ServiceSpec, preview: DesiredPreview): Promise<boolean> {
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
    this.forget(parent);
    const ttlText = spec.source.git?.previews?.ttl;
    const ttl = ttlText === undefined ? undefined : parseDuration(ttlText);
    if (ttl === undefined || desired.length === 0) return;
    const next = Math.min(...desired.map((preview) => preview.headTime + ttl - now));
    const timer = setTimeout(() => this.options.requeue(parent), Math.max(0, next) + 1);
    timer.unref();
    this.expiries.set(parent, timer);
  }
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

function statusOf(object: KubeObject): PreviewStatus {
  const source = object.spec.source as ServiceSpec["source"] | undefined;
  const branch = source?.git?.triggers.productionBranch ?? "";
  const number = Number(PULL_REQUEST_REF.exec(branch)?.[1]);
  return { name: object.metadata.name, branch, ...(Number.isSafeInteger(number) && { pullRequest: number }) };
}

const byName = (a: PreviewStatus, b: PreviewStatus) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The parent's spec with the source pinned to the branch, previews off and no paths filter. */
function previewObject(parent: KubeObject, spec: ServiceSpec, preview: DesiredPreview): KubeObject {
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
