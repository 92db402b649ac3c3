import type {
  KindName,
  ProxySpec,
  ProxySpecInput,
  ServiceRevisionSpec,
  ServiceRevisionSpecInput,
  ServiceSpec,
  ServiceSpecInput,
} from "../schema";
import type { ObjectStatus, ServiceStatus } from "../schema/status";
import type { WarningHandler } from "./warnings";
import type { WatchOptions, WatchStream } from "./watch";

export type { Condition, ConditionStatus, ObjectStatus, ServiceStatus } from "../schema/status";

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Metadata of a stored object; the server sets everything but name, labels and annotations. */
export interface ObjectMeta {
  name: string;
  /** On create without a name: the server appends a random suffix to this prefix. */
  generateName?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  /** Set while a two-phase deletion is in progress. */
  deletionTimestamp?: string;
  /** 0 on a custom resource's mark, on either server, whatever grace the deletion asked for. */
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  /**
   * Names of what must happen before the object goes: a deletion only sets `deletionTimestamp` while any is
   * left, and whoever finished its work removes its name with an update.
   */
  finalizers?: string[];
  /** Which manager owns which fields (server-side apply); written by the server. */
  managedFields?: ManagedFieldsEntry[];
}

/**
 * One manager's fields, as Kubernetes records them: an `Apply` entry holds the fields of the manager's last
 * applied configuration, an `Update` entry those its other writes changed. `fieldsV1` is a trie of
 * `f:<field>`, `k:<keys>` (an item of a list merged by key) and `.` (the container itself).
 */
export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time?: string;
  fieldsType: "FieldsV1";
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** An object of any kind as far as waiting on it goes: its metadata and status, whatever its spec. */
export interface ObjectWithStatus {
  metadata: ObjectMeta;
  status?: ObjectStatus;
}

/**
 * An object as the server returns it: spec with every default applied, status written by the server. The
 * one object type: `Service` and the others are its instances; without arguments it is an object of any
 * kind, spec and status as plain records, as the server stores it and the controller reads and writes it.
 */
export interface ApiObject<
  K extends KindName = KindName,
  Spec = Record<string, unknown>,
  Status = Record<string, unknown>,
> {
  apiVersion: string;
  kind: K;
  metadata: ObjectMeta;
  spec: Spec;
  status?: Status;
}

export type Proxy = ApiObject<"Proxy", ProxySpec, ObjectStatus>;
export type Service = ApiObject<"Service", ServiceSpec, ServiceStatus>;
export type ServiceRevision = ApiObject<"ServiceRevision", ServiceRevisionSpec, ObjectStatus>;

/** An object to write: defaults may be left out; `apiVersion` and `kind` are filled in by the client. */
export interface ObjectInput<K extends KindName, Spec> {
  apiVersion?: string;
  kind?: K;
  /** `resourceVersion` is required by `replace` (optimistic concurrency). */
  metadata?: Partial<ObjectMeta>;
  spec: Spec;
}

export type ProxyInput = ObjectInput<"Proxy", ProxySpecInput>;
export type ServiceInput = ObjectInput<"Service", ServiceSpecInput>;
export type ServiceRevisionInput = ObjectInput<"ServiceRevision", ServiceRevisionSpecInput>;

/** The object and input types of each kind. */
export interface KindTypes {
  Proxy: { object: Proxy; input: ProxyInput };
  Service: { object: Service; input: ServiceInput };
  ServiceRevision: { object: ServiceRevision; input: ServiceRevisionInput };
}

export interface ListMeta {
  resourceVersion?: string;
  /** Present when more items follow: pass it as `continue` to get the next page. */
  continue?: string;
  remainingItemCount?: number;
}

export interface ObjectList<T> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

/** Per-call settings, on every operation. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Deadline of one attempt; overrides the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries`. */
  maxRetries?: number;
  /**
   * Given each `Warning` (code 299) of this call's answers, after the client's `onWarning`: advisory rules the
   * object breaks, unknown fields the server dropped. A create that looks its object up after a lost answer
   * reports the lookup's warnings too.
   */
  onWarning?: WarningHandler;
}

export interface ListOptions extends CallOptions {
  labelSelector?: string;
  /** `metadata.name=<name>` (the one field every kind can be selected by). */
  fieldSelector?: string;
  /** Page size; the answer's `metadata.continue` fetches the next page. */
  limit?: number;
  continue?: string;
}

/** What the server does with fields the schema does not know: refuse them, warn, or drop them. */
export type FieldValidation = "Strict" | "Warn" | "Ignore";

/**
 * `"All"` (the one value Kubernetes defines): the server runs the write through everything a real one goes
 * through (decoding, admission and validation, defaults, field ownership, preconditions, name conflicts) and
 * answers with what it would store, or with the error it would give, but stores nothing: no resourceVersion
 * is used, no watcher or controller hears of it, and a would-be object's uid is made up for the answer.
 */
export type DryRun = "All";

export interface WriteOptions extends CallOptions {
  fieldValidation?: FieldValidation;
  /**
   * The name the write is recorded under in `metadata.managedFields` (an `Update` entry). Without it the
   * server takes the product name of the User-Agent, which this client does not send: the manager is `""`.
   */
  fieldManager?: string;
  /** Validate and answer, store nothing (see `DryRun`). */
  dryRun?: DryRun;
}

export interface CreateOptions extends WriteOptions {
  /**
   * A token unique to this create (`newCreateToken()`), written as the annotation `example.dev/create-token`.
   * It makes the create safe to repeat: the POST is retried even after an attempt that may have reached the
   * server, and when the create then fails in a way that may have stored the object (409 AlreadyExists, a
   * lost answer, a 5xx), the object under the name is looked up and returned if it carries this token. An
   * object without it is someone else's: the error stands. If the lookup fails too, the create throws
   * `CreateUnconfirmedError`. Needs `metadata.name`. With `dryRun` nothing is looked up: nothing was stored.
   */
  createToken?: string;
}

/** Kubernetes `DeleteOptions.preconditions`: the delete happens only if the object still matches. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions extends CallOptions {
  /** Delete only this very object; a mismatch is 409 Conflict (the object under the name is another one). */
  preconditions?: Preconditions;
  /** Check the deletion (the object exists, the preconditions hold) and delete nothing (see `DryRun`). */
  dryRun?: DryRun;
}

export interface DeleteCollectionOptions extends CallOptions {
  labelSelector?: string;
  /** Answer as the deletion would, delete nothing (see `DryRun`). */
  dryRun?: DryRun;
}

/** One RFC 6902 operation; `path` is a JSON pointer (`/spec/shutdown/drainTimeout`). */
export type JsonPatchOperation =
  | { op: "add" | "replace" | "test"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "move" | "copy"; from: string; path: string };

/** An RFC 7386 merge patch: keys set replace, `null` removes, arrays are replaced whole. */
export type MergePatch = Record<string, unknown>;

export interface PatchOptions extends WriteOptions {
  /** `merge`: application/merge-patch+json; `json`: application/json-patch+json. */
  type: "merge" | "json";
}

/** Every field optional, at every level: what one field manager may send. */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * A server-side apply configuration: the object as one field manager wants it, holding only the fields that
 * manager manages (any subset of the spec, labels, annotations). `metadata.name` is filled in from the name
 * passed to `apply`; `apiVersion` and `kind` by the client. A `metadata.uid` is a precondition: the apply
 * fails with 409 Conflict when the object under the name has another uid. `metadata.managedFields` must not
 * be sent.
 */
export type ApplyConfiguration<I> = {
  [K in keyof I]?: K extends "spec" ? DeepPartial<I[K]> : I[K];
};

/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`, the configuration sent as JSON, which is
 * YAML). The server merges the configuration onto the object (creating it when it is missing), removes what
 * this manager applied last time and no longer sends (unless another manager owns it too), and records the
 * manager's fields in `metadata.managedFields` (an `Apply` entry).
 */
export interface ApplyOptions extends Omit<WriteOptions, "fieldManager"> {
  /** Required: the configuration is this manager's, and what it owns is recorded under this name. */
  fieldManager: string;
  /**
   * Take over fields other managers own. Without it, changing the value of a field another manager owns is a
   * 409 Conflict whose causes name each field (`field`) and its manager (`message`, `conflict with "kubectl"`),
   * with the reason `FieldManagerConflict`; nothing is written.
   */
  force?: boolean;
}

export interface WaitOptions {
  timeoutMs: number;
  /** Time between looks (GET) while no watch is live (opening, broken, or refused by the server); default 1000. */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** The seven operations of one kind, server-side apply, and helpers to read every page and to wait for a state. */
export interface ResourceClient<T, I> {
  readonly kind: KindName;
  list(options?: ListOptions): Promise<ObjectList<T>>;
  /** Every item, following `continue` page after page. */
  listAll(options?: Omit<ListOptions, "continue">): Promise<T[]>;
  create(object: I, options?: CreateOptions): Promise<T>;
  deleteCollection(options?: DeleteCollectionOptions): Promise<void>;
  get(name: string, options?: CallOptions): Promise<T>;
  replace(name: string, object: I, options?: WriteOptions): Promise<T>;
  /**
   * Server-side apply of `configuration` as `options.fieldManager` (see `ApplyOptions`): the object as it is
   * after the apply (created when it was missing). A conflict with another manager throws `ConflictError`
   * whose `causes` name the fields and managers.
   */
  apply(name: string, configuration: ApplyConfiguration<I>, options: ApplyOptions): Promise<T>;
  patch(name: string, patch: MergePatch, options: PatchOptions & { type: "merge" }): Promise<T>;
  patch(
    name: string,
    patch: readonly JsonPatchOperation[],
    options: PatchOptions & { type: "json" },
  ): Promise<T>;
  /**
   * Writes only `status` (the `/status` subresource, as a controller reports what it observed): the object's
   * other fields are ignored, `metadata.resourceVersion` is checked when given. The object as stored after.
   */
  replaceStatus(name: string, object: T, options?: WriteOptions): Promise<T>;
  /** A patch of the `/status` subresource: only the patch's `status` is stored. */
  patchStatus(name: string, patch: MergePatch, options: PatchOptions & { type: "merge" }): Promise<T>;
  patchStatus(
    name: string,
    patch: readonly JsonPatchOperation[],
    options: PatchOptions & { type: "json" },
  ): Promise<T>;
  /** The object while its deletion is in progress, or undefined when the server answered with a Status. */
  delete(name: string, options?: DeleteOptions): Promise<T | undefined>;
  /**
   * Watches the object until `predicate` holds and returns what it saw; `undefined` is passed (and returned)
   * while the object does not exist, so `(o) => o === undefined` waits for a deletion. Looks (GET) first, then
   * hears of each change from a watch of the object; polls while no watch is live. Throws `WaitTimeoutError`.
   */
  waitFor(
    name: string,
    predicate: (object: T | undefined) => boolean,
    options: WaitOptions,
  ): Promise<T | undefined>;
  /**
   * Opens a watch of the kind (resolves once the server answered): its events in order until the server
   * ends it. A resourceVersion the server no longer keeps throws `GoneError` (410), at the start or as an
   * ERROR event; the caller then lists again and watches from the list's version.
   */
  watch(options?: WatchOptions): Promise<WatchStream<T>>;
}
