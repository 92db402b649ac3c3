import type { ApiObject } from "../../sdk/client/types";
import type { Status } from "../../sdk/errors";
import { successStatus } from "../../sdk/errors/reasons";
import { badRequest, notFound } from "../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../sdk/schema";
import {
  PROPAGATION_POLICIES,
  type PropagationPolicy,
  type TerminationOptions,
  terminate,
  terminationOf,
} from "../lifecycle";
import { isRecord } from "../records";
import { checkDeletePreconditions, type ObjectStore, type Preconditions } from "../storage";
import { parseDryRun, wouldDelete } from "./dry-run";
import { type FieldSelector, matchesFields } from "./field-selector";
import { type LabelSelector, matchesSelector } from "./selector";

export { preconditionFailed } from "../storage";

/**
 * What a delete answers: the object while the deletion is pending (200, or 202 for the deprecated
 * `orphanDependents=false`), or a Success Status once it is gone (200).
 */
export type DeleteOutcome =
  | { code: 200 | 202; object: ApiObject; status?: undefined }
  | { code: 200; object: ApiObject; status: Status };

/**
 * Kubernetes' `DeleteOptions`: preconditions, the propagation policy (what happens to the objects the
 * deleted one owns) and dry run. `gracePeriodSeconds` is read and checked, and changes nothing, as for
 * kube-apiserver's custom resources: what holds an object is its finalizers (a Proxy's drain among them).
 */
export interface DeleteOptions extends TerminationOptions {
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  /**
   * The deprecated flag as the request gave it (it also sets `propagationPolicy`). Kept for the one thing
   * only it changes: a delete that marks the object answers 202 when it is false, as kube-apiserver does.
   */
  orphanDependents?: boolean;
  /** `dryRun: ["All"]`: answer what the deletion would do, change nothing. */
  dryRun?: boolean;
}

/** A delete-collection's DeleteOptions and the selectors that choose what it deletes. */
export interface DeleteCollectionOptions extends DeleteOptions {
  labels: LabelSelector;
  fields: FieldSelector;
}

const API_VERSIONS: ReadonlySet<unknown> = new Set(["v1", "meta.k8s.io/v1"]);

/** A propagation policy, or a 400 naming `where` and the policies there are. */
export function readPolicy(value: unknown, where: string): PropagationPolicy {
  if ((PROPAGATION_POLICIES as readonly unknown[]).includes(value)) return value as PropagationPolicy;
  throw badRequest(
    `${where}: Unsupported value: ${describe(value)}: supported values: ${PROPAGATION_POLICIES.map((p) => `"${p}"`).join(", ")}`,
  );
}

/** The deprecated `orphanDependents` as the policy it means; it cannot be given beside a policy. */
export function orphanPolicy(
  orphan: boolean,
  policy: PropagationPolicy | undefined,
  where: string,
): PropagationPolicy {
  if (policy !== undefined) {
    throw badRequest(
      `${where}: orphanDependents and propagationPolicy cannot be both set; use propagationPolicy (Orphan, Background or Foreground)`,
    );
  }
  return orphan ? "Orphan" : "Background";
}

/**
 * The body of a DELETE: Kubernetes' `DeleteOptions` (`kind` and `apiVersion` may be left out, as the
 * Kubernetes API server defaults them), or nothing. An unknown field or a malformed value is 400, never
 * ignored: ignoring `dryRun` would delete for real, ignoring a misspelt `precondition` would delete
 * unconditionally. As in Kubernetes, a field set to null counts as left out.
 */
export function readDeleteBody(body: unknown): DeleteOptions {
  if (body === undefined) return {};
  if (!isRecord(body)) {
    throw badRequest(
      'the body of a DELETE must be a DeleteOptions object, e.g. {"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"..."}}, or empty',
    );
  }
  const options: DeleteOptions = {};
  for (const [field, value] of Object.entries(body)) {
    if (value === null) continue;
    switch (field) {
      case "kind":
        if (value !== "DeleteOptions")
          throw badRequest(
            `kind: the body of a DELETE is a DeleteOptions, not ${describe(value)}; set kind to "DeleteOptions" or leave it out`,
          );
        break;
      case "apiVersion":
        if (!API_VERSIONS.has(value))
          throw badRequest(
            `apiVersion: DeleteOptions is served as v1 or meta.k8s.io/v1, not ${describe(value)}; set apiVersion to "v1" or leave it out`,
          );
        break;
      case "preconditions":
        options.preconditions = readPreconditions(value);
        break;
      case "propagationPolicy":
        options.propagationPolicy = readPolicy(value, "DeleteOptions.propagationPolicy");
        break;
      case "gracePeriodSeconds":
        if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)
          throw badRequest(
            `DeleteOptions.gracePeriodSeconds must be a whole number of seconds (0 or more), not ${describe(value)}`,
          );
        options.gracePeriodSeconds = value;
        break;
      case "orphanDependents":
        break;
      case "dryRun":
        if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string"))
          throw badRequest(`DeleteOptions.dryRun must be a list such as ["All"], not ${describe(value)}`);
        if (value.length > 0 && parseDryRun(value)) options.dryRun = true;
        break;
      default:
        throw badRequest(
          `DeleteOptions.${field} is not a field of DeleteOptions; the supported fields are kind, apiVersion, preconditions, propagationPolicy, orphanDependents, gracePeriodSeconds and dryRun`,
        );
    }
  }
  // The deprecated flag is read last, so it conflicts with a policy whatever the order of the fields.
  const orphan = body.orphanDependents;
  if (orphan !== undefined && orphan !== null) {
    if (typeof orphan !== "boolean")
      throw badRequest(`DeleteOptions.orphanDependents must be true or false, not ${describe(orphan)}`);
    options.propagationPolicy = orphanPolicy(
      orphan,
      options.propagationPolicy,
      "DeleteOptions.orphanDependents",
    );
    options.orphanDependents = orphan;
  }
  return options;
}

function readPreconditions(value: unknown): Preconditions {
  if (!isRecord(value)) {
    throw badRequest(
      `DeleteOptions.preconditions must be an object such as {"uid":"...","resourceVersion":"..."}, not ${describe(value)}`,
    );
  }
  const preconditions: Preconditions = {};
  for (const [field, given] of Object.entries(value)) {
    if (given === null) continue;
    if (field !== "uid" && field !== "resourceVersion") {
      throw badRequest(
        `DeleteOptions.preconditions.${field} is not a precondition; the preconditions are uid and resourceVersion`,
      );
    }
    if (typeof given !== "string") {
      const what = field === "uid" ? "the metadata.uid" : "the metadata.resourceVersion";
      throw badRequest(
        `DeleteOptions.preconditions.${field} must be a string (${what} of the object to delete), not ${describe(given)}`,
      );
    }
    preconditions[field] = given;
  }
  return preconditions;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

/**
 * Deletes one object as Kubernetes does. Preconditions are checked first (409 Conflict when one fails).
 * Then the lifecycle's rules (lifecycle/termination.ts): an object with finalizers (user-set, or the one a
 * Foreground or Orphan policy sets, or the controller's Proxy drain) is marked with a
 * `deletionTimestamp` (200, the object in the body; again 200 and the object while it terminates);
 * anything else goes at once (200 and a Success Status), as does a mark the lifecycle could finish at
 * once. Owned objects follow through the garbage collector. A dry run answers the same and changes
 * nothing.
 *
 * The codes are kube-apiserver's (k8s.io/apiserver pkg/endpoints/handlers/delete.go, `DeleteResource`):
 * 200 whether the object went or was only marked (a CRD's finalizers), and 202 only for an object not
 * deleted at once when the request set the deprecated `orphanDependents` to false.
 */
export function deleteObject(
  store: ObjectStore,
  kind: KindName,
  name: string,
  options: DeleteOptions = {},
): DeleteOutcome {
  const existing = store.get(kind, name);
  if (!existing) throw notFound(KINDS[kind], name);
  checkDeletePreconditions(kind, existing, options.preconditions);
  if (options.dryRun) {
    const would = wouldDelete(kind, store, existing, options);
    return would.gone ? gone(kind, would.object) : pending(would.object, options);
  }
  // Synchronous from the check on: nothing can change the object between the preconditions and this.
  const outcome = terminate(store, kind, existing, options);
  if (!outcome) throw notFound(KINDS[kind], name);
  return outcome.gone ? gone(kind, outcome.object) : pending(outcome.object, options);
}

/** The answer while the deletion is pending: the object, 200 (202 only for `orphanDependents=false`). */
function pending(object: ApiObject, options: DeleteOptions): DeleteOutcome {
  return { code: options.orphanDependents === false ? 202 : 200, object };
}

function gone(kind: KindName, object: ApiObject): DeleteOutcome {
  const { group, plural } = KINDS[kind];
  const { name, uid } = object.metadata;
  return { code: 200, object, status: successStatus({ name, group, kind: plural, uid }) };
}

/**
 * One chunk of a delete-collection: the objects selected earlier that are still there as the same
 * incarnation and still match the selectors. Those that go at once are removed in one commit; those the
 * lifecycle must finish (finalizers) are each marked. The answer lists them as the
 * deletion left them (a dry run: as it would); what changed or went meanwhile is passed over, as
 * Kubernetes passes over what it no longer finds.
 */
export function deleteSelected(
  store: ObjectStore,
  kind: KindName,
  selected: readonly ApiObject[],
  options: DeleteCollectionOptions,
): ApiObject[] {
  const { labels, fields } = options;
  const current = selected.flatMap((object) => {
    const found = store.get(kind, object.metadata.name);
    const same = found?.metadata.uid === object.metadata.uid;
    const matches = found && matchesSelector(labels, found.metadata.labels) && matchesFields(fields, found);
    return found && same && matches ? [found] : [];
  });
  if (options.dryRun) return current.map((object) => wouldDelete(kind, store, object, options).object);
  const plans = current.map((object) => ({ object, termination: terminationOf(object, options) }));
  const results = new Map<string, ApiObject>();
  const removals = plans.filter(({ termination }) => termination.remove).map(({ object }) => object);
  const targets = removals.map(({ metadata: { name, uid } }) => ({ kind, name, uid }));
  for (const removed of store.deleteMany(targets)) if (removed) results.set(removed.metadata.name, removed);
  for (const { object, termination } of plans) {
    if (termination.remove) continue;
    const outcome = terminate(store, kind, object, options);
    if (outcome) results.set(object.metadata.name, outcome.object);
  }
  return current.flatMap((object) => results.get(object.metadata.name) ?? []);
}
