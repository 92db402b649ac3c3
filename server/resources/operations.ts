import {
  admitForStore,
  admitStatus,
  type Envelope,
  type FieldValidation,
  readEnvelope,
  withDrainFinalizer,
} from "../../admission";
import type { ApiObject } from "../../sdk/client/types";
import { badRequest, conflict, invalid, notFound } from "../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../sdk/schema";
import { isRecord } from "../records";
import { checkPreconditions, type ObjectStore } from "../storage";
import { type Applied, type ApplyOptions, applyObject, applyStatus } from "./apply";
import {
  type DeleteCollectionOptions,
  type DeleteOptions,
  type DeleteOutcome,
  deleteObject,
  deleteSelected,
} from "./deletion";
import { wouldCreate, wouldUpdate, wouldUpdateStatus } from "./dry-run";
import { type FieldSelector, matchesFields, selectedName } from "./field-selector";
import { managedFieldsAfterUpdate, sentManagedFields, withManagedFields } from "./managed-fields";
import { checkObjectSize, DEFAULT_MAX_OBJECT_BYTES } from "./object-size";
import { continueAfter, continueToken } from "./paging";
import { applyPatchDocument, type PatchType } from "./patch";
import { redactObject } from "./redaction";
import { type LabelSelector, matchesSelector } from "./selector";

export interface ObjectList {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  /** Stored objects as stored (see `ObjectStore.pageView`): to serialize, never to change. */
  items: readonly Readonly<ApiObject>[];
}

export interface ListQuery {
  selector: LabelSelector;
  /** `fieldSelector`: `metadata.name` (and `metadata.namespace`, always "" here). */
  fields?: FieldSelector;
  limit?: number;
  continue?: string;
  /** The resourceVersion the list is at (an `Exact` read at a version nothing has changed since). */
  resourceVersion?: string;
}

/** What a create, a replace (PUT) and a merge or JSON patch take besides the object (CreateOptions, UpdateOptions). */
export interface WriteOptions {
  fieldValidation: FieldValidation;
  /** The field manager the write is recorded under (managedFields). */
  manager: string;
  /** Admitted and answered as written, but not stored (see dry-run.ts). */
  dryRun: boolean;
}

/** A patch other than an apply: its type (the request's media type) and the patch document. */
export interface Patch {
  type: PatchType;
  document: unknown;
}

/** How many objects a delete-collection removes in one commit before it lets other requests run. */
export const DELETE_COLLECTION_CHUNK = 100;

export interface Written {
  object: ApiObject;
  warnings: string[];
}

/**
 * The seven operations of one kind and the three of its status subresource, in Kubernetes API server
 * semantics, free of HTTP. Every write refuses (413) an object larger than `maxObjectBytes` as JSON: what it
 * is asked to write is measured before admission does any work on it, and what it would store is measured
 * again before it is stored.
 */
export class ResourceOperations {
  constructor(
    private readonly kind: KindName,
    private readonly store: ObjectStore,
    private readonly maxObjectBytes = DEFAULT_MAX_OBJECT_BYTES,
    /** Whether the controller drains Proxies: a Proxy is created with its finalizer. */
    private readonly drainProxies = false,
  ) {}

  /**
   * In name order; a page costs what it returns (the store keeps names sorted), not the whole collection,
   * and copies nothing (the items are the stored objects, which the answer only serializes).
   */
  list(query: ListQuery): ObjectList {
    const fields = query.fields ?? [];
    const where =
      query.selector.length === 0 && fields.length === 0
        ? undefined
        : (object: ApiObject) =>
            matchesSelector(query.selector, object.metadata.labels) && matchesFields(fields, object);
    const after = continueAfter(query.continue);
    // A selector that pins the name is a lookup, not a scan (kubectl delete --wait lists this way).
    const name = selectedName(fields);
    const page =
      name === undefined
        ? this.store.pageView(this.kind, { after, limit: query.limit, where })
        : this.pageOfOne(name, after, where);
    const last = page.items.at(-1)?.metadata.name;
    const list = this.listOf(page.items, {
      ...(page.more && last !== undefined && { continue: continueToken(last) }),
      ...(page.remaining !== undefined && { remainingItemCount: page.remaining }),
    });
    if (query.resourceVersion !== undefined) list.metadata.resourceVersion = query.resourceVersion;
    return list;
  }

  private pageOfOne(
    name: string,
    after: string | undefined,
    where: ((object: ApiObject) => boolean) | undefined,
  ) {
    const found = this.store.get(this.kind, name);
    const items =
      found && (after === undefined || name > after) && (where === undefined || where(found)) ? [found] : [];
    return { items, more: false, remaining: undefined };
  }

  create(body: unknown, options: WriteOptions): Written {
    this.checkSize(body);
    const { object, warnings } = admitForStore(this.kind, readEnvelope(this.kind, body), options);
    const owned = this.owned(undefined, object, options.manager, body);
    const created = this.drainProxies ? withDrainFinalizer(owned) : owned;
    return {
      object: options.dryRun
        ? wouldCreate(this.kind, this.store, created)
        : this.store.create(this.kind, created),
      warnings,
    };
  }

  get(name: string): ApiObject {
    return this.require(name);
  }

  /** PUT: the body is the whole object, and must name the version it replaces. */
  replace(name: string, body: unknown, options: WriteOptions): Written {
    const { existing, envelope } = this.replacing(name, body);
    return this.update(existing, envelope, body, options);
  }

  /**
   * PATCH: the patch applies to the object as the client reads it, then goes through the same admission
   * as a PUT. Without a resourceVersion of its own it applies to the current version.
   */
  patch(name: string, patch: Patch, options: WriteOptions): Written {
    const { existing, envelope, patched } = this.patching(name, patch);
    return this.update(existing, envelope, patched, options);
  }

  /** Server-side apply (`application/apply-patch+yaml`): see `apply/index.ts`. 201 when it created the object. */
  apply(name: string, config: unknown, options: ApplyOptions): Applied {
    const { kind, store, maxObjectBytes, drainProxies } = this;
    return applyObject({ kind, store, maxObjectBytes, drainProxies }, name, config, options);
  }

  /**
   * PUT to the status subresource: as a PUT of the object, but only the body's `status` is stored (none
   * when it has none); spec and metadata stay as stored (kube-apiserver's status strategy for a CRD).
   */
  replaceStatus(name: string, body: unknown, options: WriteOptions): Written {
    const { existing, envelope } = this.replacing(name, body);
    return this.updateStatus(existing, envelope, body, options);
  }

  /** PATCH of the status subresource: the patch applies to the whole object, and only its status is stored. */
  patchStatus(name: string, patch: Patch, options: WriteOptions): Written {
    const { existing, envelope, patched } = this.patching(name, patch);
    return this.updateStatus(existing, envelope, patched, options);
  }

  /** Server-side apply to the status subresource: see `applyStatus` in `apply/index.ts`. Never creates. */
  applyStatus(name: string, config: unknown, options: ApplyOptions): Written {
    const { kind, store, maxObjectBytes } = this;
    return applyStatus({ kind, store, maxObjectBytes }, name, config, options);
  }

  delete(name: string, options: DeleteOptions): DeleteOutcome {
    return deleteObject(this.store, this.kind, name, options);
  }

  /**
   * Deletes every object the selector matches; the answer lists them as the deletion left them. The
   * objects go in chunks, each one commit, and the event loop runs between chunks: other requests (and
   * /healthz) are answered while a large collection is deleted. Objects created meanwhile are not
   * deleted; objects that went meanwhile are not listed.
   */
  async deleteCollection(options: DeleteCollectionOptions): Promise<ObjectList> {
    if (options.preconditions !== undefined) {
      throw badRequest(
        "DeleteOptions.preconditions name one object: send them with a DELETE of that object, not of the collection",
      );
    }
    const { labels, fields } = options;
    const selected = this.select(labels, fields);
    const deleted: ApiObject[] = [];
    for (let start = 0; start < selected.length; start += DELETE_COLLECTION_CHUNK) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      const chunk = selected.slice(start, start + DELETE_COLLECTION_CHUNK);
      deleted.push(...deleteSelected(this.store, this.kind, chunk, options));
    }
    return this.listOf(deleted, {});
  }

  private update(existing: ApiObject, envelope: Envelope, body: unknown, options: WriteOptions): Written {
    // A uid in the body names the object the client means: another one under the name is a 409.
    checkPreconditions(this.kind, existing, { uid: envelope.uid });
    if (envelope.metadata.resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(KINDS[this.kind], existing.metadata.name);
    }
    const { object, warnings } = admitForStore(this.kind, envelope, options, existing);
    const owned = this.owned(existing, object, options.manager, body);
    return {
      object: options.dryRun
        ? wouldUpdate(this.kind, this.store, owned)
        : this.store.update(this.kind, owned),
      warnings,
    };
  }

  /** What a PUT (of the object or of its status) checks before it looks at the body's contents. */
  private replacing(name: string, body: unknown): { existing: ApiObject; envelope: Envelope } {
    this.checkSize(body);
    const envelope = readEnvelope(this.kind, body);
    this.checkName(envelope.metadata.name, name);
    const existing = this.require(name);
    if (!envelope.metadata.resourceVersion) {
      throw invalid(KINDS[this.kind], name, [
        {
          reason: "FieldValueRequired",
          field: "metadata.resourceVersion",
          message:
            "metadata.resourceVersion: must be specified for an update; send the version you read (GET) with your changes",
        },
      ]);
    }
    return { existing, envelope };
  }

  /** The object as a patch (of the object or of its status) leaves it, before admission. */
  private patching(name: string, patch: Patch) {
    const existing = this.require(name);
    const patched = applyPatchDocument(
      patch.type,
      redactObject(existing),
      patch.document,
      this.maxObjectBytes,
    );
    this.checkSize(patched);
    const envelope = readEnvelope(this.kind, patched);
    this.checkName(envelope.metadata.name, name);
    envelope.metadata.resourceVersion ??= existing.metadata.resourceVersion;
    return { existing, envelope, patched };
  }

  /**
   * A write to the status subresource: the same preconditions as an update (uid, resourceVersion), then only
   * `status` is admitted and stored; the generation stays, the resourceVersion moves, and the managedFields
   * record the write under `manager` with `subresource: "status"`.
   */
  private updateStatus(
    existing: ApiObject,
    envelope: Envelope,
    body: unknown,
    options: WriteOptions,
  ): Written {
    const { name } = existing.metadata;
    checkPreconditions(this.kind, existing, { uid: envelope.uid });
    if (envelope.metadata.resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(KINDS[this.kind], name);
    }
    const requested = isRecord(body) ? body.status : undefined;
    const { status, warnings } = admitStatus(this.kind, name, envelope, requested, options.fieldValidation);
    const managedFields = managedFieldsAfterUpdate(
      this.kind,
      existing,
      { metadata: { ...envelope.metadata, name }, status },
      options.manager,
      sentManagedFields(body),
      "status",
    );
    const { status: _stored, ...rest } = existing;
    const object = withManagedFields({ ...rest, ...(status && { status }) }, managedFields);
    this.checkSize(object);
    return {
      object: options.dryRun
        ? wouldUpdateStatus(this.kind, this.store, object)
        : this.store.replaceStatus(this.kind, object),
      warnings,
    };
  }

  /** The admitted object with its managedFields after this write (an `Update` by `manager`). */
  private owned(existing: ApiObject | undefined, object: ApiObject, manager: string, body: unknown) {
    const managedFields = managedFieldsAfterUpdate(
      this.kind,
      existing,
      object,
      manager,
      sentManagedFields(body),
    );
    const owned = withManagedFields(object, managedFields);
    this.checkSize(owned);
    return owned;
  }

  private checkSize(object: unknown): void {
    checkObjectSize(this.kind, object, this.maxObjectBytes);
  }

  private select(selector: LabelSelector, fields: FieldSelector): ApiObject[] {
    return this.store
      .list(this.kind)
      .filter((object) => matchesSelector(selector, object.metadata.labels) && matchesFields(fields, object));
  }

  private listOf(
    items: readonly Readonly<ApiObject>[],
    metadata: Omit<ObjectList["metadata"], "resourceVersion">,
  ): ObjectList {
    const { apiVersion, listKind } = KINDS[this.kind];
    return {
      apiVersion,
      kind: listKind,
      metadata: { resourceVersion: this.store.resourceVersion(), ...metadata },
      items,
    };
  }

  private require(name: string): ApiObject {
    const existing = this.store.get(this.kind, name);
    if (!existing) throw notFound(KINDS[this.kind], name);
    return existing;
  }

  private checkName(bodyName: string | undefined, pathName: string): void {
    if (bodyName !== pathName) {
      throw badRequest(
        `the name of the object (${bodyName ?? "none"}) does not match the name on the URL (${pathName}); set metadata.name to "${pathName}"`,
      );
    }
  }
}
