import {
  AlreadyExistsError,
  type ApiError,
  apiErrorFromResponse,
  NotFoundError,
  TransportError,
  WaitTimeoutError,
} from "../errors";
import { redactValues } from "../errors/redact";
import { KINDS, type KindName } from "../schema";
import { KindWatch, type WatchableClient } from "./kind-watch";
import { isOwnCreate, mayHaveStored, storedAfterFailedCreate, withCreateToken } from "./own-create";
import { resourcePath, statusPath, withQuery } from "./paths";
import { secretValuesOf, secretValuesOfJsonPatch } from "./secrets";
import type { HttpRequest, HttpResponse, Sleep, Transport } from "./transport";
import type {
  ApplyConfiguration,
  ApplyOptions,
  CallOptions,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  JsonPatchOperation,
  KindTypes,
  ListOptions,
  MergePatch,
  ObjectList,
  ObjectMeta,
  PatchOptions,
  ResourceClient,
  WaitOptions,
  WriteOptions,
} from "./types";
import { holds, waitFor } from "./wait";
import type { ApiWarning, WarningHandler } from "./warnings";
import { type WatchOptions, type WatchStream, watchStream } from "./watch";

const PATCH_CONTENT_TYPES = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
} as const;

/** Server-side apply's media type; the body is JSON, which is YAML. */
const APPLY_CONTENT_TYPE = "application/apply-patch+yaml";

/** What every call of one client shares. */
export interface ResourceClientContext {
  transport: Transport;
  sleep: Sleep;
  /** Values no error or warning may contain, whatever the request (the API token). */
  redact: readonly string[];
  /** The client's warning handler (`ClientOptions.onWarning`). */
  onWarning?: WarningHandler;
}

/** The typed operations of one kind over the shared transport. */
export function resourceClient<K extends KindName>(
  kind: K,
  context: ResourceClientContext,
): ResourceClient<KindTypes[K]["object"], KindTypes[K]["input"]> {
  return new KindClient(kind, context);
}

class KindClient<T, I> implements ResourceClient<T, I> {
  constructor(
    readonly kind: KindName,
    private readonly context: ResourceClientContext,
  ) {}

  async list(options: ListOptions = {}): Promise<ObjectList<T>> {
    const { labelSelector, fieldSelector, limit, continue: token, ...call } = options;
    const path = withQuery(resourcePath(this.kind), { labelSelector, fieldSelector, limit, continue: token });
    return this.expect(await this.send({ method: "GET", path, ...call }));
  }

  async listAll(options: Omit<ListOptions, "continue"> = {}): Promise<T[]> {
    const items: T[] = [];
    let token: string | undefined;
    do {
      const page = await this.list({ ...options, continue: token });
      items.push(...page.items);
      token = page.metadata.continue || undefined;
    } while (token);
    return items;
  }

  async create(object: I, options: CreateOptions = {}): Promise<T> {
    const { createToken, fieldValidation, fieldManager, dryRun, ...call } = options;
    const name = nameOf(object);
    if (createToken !== undefined && name === undefined) {
      throw new TypeError("createToken needs metadata.name: an object without a name cannot be looked up");
    }
    const path = withQuery(resourcePath(this.kind), { fieldValidation, fieldManager, dryRun });
    const body = this.envelope(createToken === undefined ? object : withCreateToken(object, createToken));
    const recognisesOwnCreate = createToken !== undefined;
    const secrets = secretValuesOf(this.kind, specOf(object));
    let error: Error;
    try {
      const response = await this.send({ method: "POST", path, body, recognisesOwnCreate, ...call }, secrets);
      if (isSuccess(response)) return response.body as T;
      error = this.error(response, name, secrets);
    } catch (failure) {
      if (!(failure instanceof TransportError)) throw failure;
      error = failure;
    }
    // An earlier attempt of ours may hold the name (a retry after a lost answer). A dry run stores nothing:
    // there is no create of ours to find.
    const maybeOurs = error instanceof AlreadyExistsError || mayHaveStored(error);
    if (createToken === undefined || name === undefined || dryRun || !maybeOurs) throw error;
    const lookUp = () => this.find(name, call);
    const stored = await storedAfterFailedCreate(`${this.kind} "${name}"`, name, error, lookUp);
    if (isOwnCreate(stored, createToken)) return stored;
    throw error;
  }

  async deleteCollection(options: DeleteCollectionOptions = {}): Promise<void> {
    const { labelSelector, dryRun, ...call } = options;
    const path = withQuery(resourcePath(this.kind), { labelSelector, dryRun });
    this.expect(await this.send({ method: "DELETE", path, ...call }));
  }

  async get(name: string, options: CallOptions = {}): Promise<T> {
    return this.expect(
      await this.send({ method: "GET", path: resourcePath(this.kind, name), ...options }),
      name,
    );
  }

  replace(name: string, object: I, options: WriteOptions = {}): Promise<T> {
    return this.put(resourcePath(this.kind, name), name, object, options);
  }

  replaceStatus(name: string, object: T, options: WriteOptions = {}): Promise<T> {
    return this.put(statusPath(this.kind, name), name, object, options);
  }

  patch(name: string, patch: MergePatch, options: PatchOptions & { type: "merge" }): Promise<T>;
  patch(
    name: string,
    patch: readonly JsonPatchOperation[],
    options: PatchOptions & { type: "json" },
  ): Promise<T>;
  patch(name: string, patch: MergePatch | readonly JsonPatchOperation[], options: PatchOptions): Promise<T> {
    return this.sendPatch(resourcePath(this.kind, name), name, patch, options);
  }

  patchStatus(name: string, patch: MergePatch, options: PatchOptions & { type: "merge" }): Promise<T>;
  patchStatus(
    name: string,
    patch: readonly JsonPatchOperation[],
    options: PatchOptions & { type: "json" },
  ): Promise<T>;
  patchStatus(
    name: string,
    patch: MergePatch | readonly JsonPatchOperation[],
    options: PatchOptions,
  ): Promise<T> {
    return this.sendPatch(statusPath(this.kind, name), name, patch, options);
  }

  /** A PUT of the object or of its status subresource (`path`). */
  private async put(path: string, name: string, object: I | T, options: WriteOptions): Promise<T> {
    const { fieldValidation, fieldManager, dryRun, ...call } = options;
    const metadata = { ...(object as { metadata?: object }).metadata };
    const body = this.envelope({ ...object, metadata: { name, ...metadata } });
    const secrets = secretValuesOf(this.kind, specOf(object));
    const query = withQuery(path, { fieldValidation, fieldManager, dryRun });
    const response = await this.send({ method: "PUT", path: query, body, ...call }, secrets);
    return this.expect(response, name, secrets);
  }

  /** A merge or JSON patch of the object or of its status subresource (`path`). */
  private async sendPatch(
    itemPath: string,
    name: string,
    patch: MergePatch | readonly JsonPatchOperation[],
    options: PatchOptions,
  ): Promise<T> {
    const { type, fieldValidation, fieldManager, dryRun, ...call } = options;
    const path = withQuery(itemPath, { fieldValidation, fieldManager, dryRun });
    const contentType = PATCH_CONTENT_TYPES[type];
    const secrets = Array.isArray(patch)
      ? secretValuesOfJsonPatch(this.kind, patch)
      : secretValuesOf(this.kind, specOf(patch));
    const response = await this.send({ method: "PATCH", path, body: patch, contentType, ...call }, secrets);
    return this.expect(response, name, secrets);
  }

  async apply(name: string, configuration: ApplyConfiguration<I>, options: ApplyOptions): Promise<T> {
    const { fieldManager, force, fieldValidation, dryRun, ...call } = options;
    if (!fieldManager) throw new TypeError("apply needs a fieldManager: the name its fields are owned under");
    const path = withQuery(resourcePath(this.kind, name), {
      fieldManager,
      force: force === undefined ? undefined : String(force),
      fieldValidation,
      dryRun,
    });
    const metadata = { ...(configuration as { metadata?: object }).metadata };
    const body = this.envelope({ ...configuration, metadata: { name, ...metadata } });
    const secrets = secretValuesOf(this.kind, specOf(configuration));
    const response = await this.send(
      { method: "PATCH", path, body, contentType: APPLY_CONTENT_TYPE, ...call },
      secrets,
    );
    return this.expect(response, name, secrets);
  }

  async delete(name: string, options: DeleteOptions = {}): Promise<T | undefined> {
    const { preconditions, dryRun, ...call } = options;
    const body = preconditions && { apiVersion: "v1", kind: "DeleteOptions", preconditions };
    const path = withQuery(resourcePath(this.kind, name), { dryRun });
    const response = await this.send({ method: "DELETE", path, ...(body && { body }), ...call });
    const answer = this.expect<{ kind?: unknown } | undefined>(response, name);
    return answer?.kind === this.kind ? (answer as T) : undefined;
  }

  async waitFor(
    name: string,
    predicate: (object: T | undefined) => boolean,
    options: WaitOptions,
  ): Promise<T | undefined> {
    const { timeoutMs, intervalMs = 1000, signal } = options;
    const subject = `${this.kind} "${name}"`;
    // A watch of this one object, for this wait only.
    const source = new KindWatch(this as unknown as WatchableClient<T & { metadata: ObjectMeta }>, {
      fieldSelector: `metadata.name=${name}`,
      pollIntervalMs: intervalMs,
      sleep: this.context.sleep,
    });
    try {
      return await waitFor(source, name, holds(predicate, `${subject} to reach the awaited state`), {
        timeoutMs,
        ...(signal && { signal }),
      });
    } catch (error) {
      // The client's message names the object and where it was last seen.
      if (error instanceof WaitTimeoutError) throw new WaitTimeoutError(subject, timeoutMs, error.lastSeen);
      throw error;
    } finally {
      source.close();
    }
  }

  async watch(options: WatchOptions = {}): Promise<WatchStream<T>> {
    const { resourceVersion, allowWatchBookmarks, timeoutSeconds, labelSelector, fieldSelector, signal } =
      options;
    const path = withQuery(resourcePath(this.kind), {
      watch: "true",
      resourceVersion,
      allowWatchBookmarks: allowWatchBookmarks === undefined ? undefined : String(allowWatchBookmarks),
      timeoutSeconds,
      labelSelector,
      fieldSelector,
    });
    const onWarning = this.warningHandler(undefined, []);
    const response = await this.context.transport.stream({
      method: "GET",
      path,
      ...(signal && { signal }),
      ...(onWarning && { onWarning }),
    });
    if (!response.open) {
      throw this.error(
        { statusCode: response.statusCode, body: response.answer, replayed: false },
        undefined,
        [],
      );
    }
    return watchStream<T>(response.body, (status) =>
      this.error({ statusCode: Number(status.code) || 500, body: status, replayed: false }, undefined, []),
    );
  }

  private async find(name: string, options: CallOptions): Promise<T | undefined> {
    try {
      return await this.get(name, options);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /** Sends `request`; its answer's warnings go to the client's handler, then the call's, without `secrets`. */
  private send(request: HttpRequest, secrets: readonly string[] = []): Promise<HttpResponse> {
    const onWarning = this.warningHandler(request.onWarning, secrets);
    return this.context.transport.send({ ...request, ...(onWarning && { onWarning }) });
  }

  /**
   * The client's handler, then the call's, given texts without the token or the request's secret values (the
   * server redacts its warnings already; this holds for any server). A handler that throws is skipped.
   */
  private warningHandler(
    own: WarningHandler | undefined,
    secrets: readonly string[],
  ): WarningHandler | undefined {
    const handlers = [this.context.onWarning, own].filter((handler) => handler !== undefined);
    if (handlers.length === 0) return undefined;
    const redact = [...this.context.redact, ...secrets];
    return (warning: ApiWarning) => {
      const safe = { ...warning, text: redactValues(warning.text, redact) };
      for (const handler of handlers) {
        try {
          handler(safe);
        } catch {
          // Reporting a warning must not change the call's outcome.
        }
      }
    };
  }

  /** The answer's body, or the ApiError it stands for. */
  private expect<R = T>(response: HttpResponse, name?: string, secrets: readonly string[] = []): R {
    if (isSuccess(response)) return response.body as R;
    throw this.error(response, name, secrets);
  }

  private error(response: HttpResponse, name: string | undefined, secrets: readonly string[]): ApiError {
    return apiErrorFromResponse(response.statusCode, response.body, {
      kind: this.kind,
      name,
      redact: [...this.context.redact, ...secrets],
    });
  }

  private envelope(object: I | object): object {
    const { apiVersion, kind } = KINDS[this.kind];
    return { ...object, apiVersion, kind };
  }
}

function isSuccess(response: HttpResponse): boolean {
  return response.statusCode >= 200 && response.statusCode < 300;
}

function nameOf(object: unknown): string | undefined {
  return (object as { metadata?: { name?: string } }).metadata?.name || undefined;
}

function specOf(object: unknown): unknown {
  return (object as { spec?: unknown } | undefined)?.spec;
}
