import { createHash, randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import {
  AlreadyExistsError,
  ApiError,
  type CallOptions,
  type Client,
  ConflictError,
  CreateUnconfirmedError,
  createTokenOf,
  NotFoundError,
  newCreateToken,
  TransportError,
} from "../sdk/client";
import {
  applyDefaults,
  isUnknown,
  KINDS,
  type KindName,
  metadataProblems,
  validateSpec,
  validateUpdate,
} from "../sdk/schema";
import { containsUnknown } from "../sdk/schema/sentinel";
import { conflictFailure, FIELD_MANAGER, fieldConflicts, isOwnManager, ownershipMigration } from "./apply";
import type { Condition } from "./await/condition";
import { deleted } from "./await/conditions";
import { WaitFailedError, waitFor } from "./await/wait";
import { watchSource } from "./await/watch-source";
import { checkDefersToPolicies, clientFor, configure, serverDryRunEnabled, writeMode } from "./clients";
import { type AnyObject, KIND_BEHAVIOUR } from "./kinds";
import { autoName } from "./naming";
import {
  apiObject,
  isManaged,
  type ObjectInputs,
  type ObjectOutputs,
  outputsOf,
  refreshedOutputs,
  unconfirmedOutputs,
} from "./state";

const DEFAULT_AWAIT_SECONDS = 300;
const UPDATE_CONFLICT_ATTEMPTS = 5;

/**
 * An error after the object exists on the server: Pulumi records the object (id and properties) as created
 * but failed to initialise, instead of forgetting it.
 */
class PartialFailure extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: ObjectOutputs,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/** An object of the name exists and is not this create's (the API said so: 409). */
class NameTaken extends Error {
  constructor(readonly answer: unknown) {
    super(answer instanceof Error ? answer.message : String(answer));
  }
}

/** The object a write may touch: the one with `uid` (when known), carrying the create's token. */
interface Expected {
  uid?: string | undefined;
  createToken?: string | undefined;
}

/**
 * Whether a failed write may nevertheless have stored the object: the answer was lost, or the server (or a
 * gateway before it) failed.
 */
function mayHaveStored(error: unknown): boolean {
  if (error instanceof TransportError) return error.mayHaveReachedServer;
  return error instanceof ApiError && (error.code >= 500 || error.code === 429);
}

/**
 * A digest of what a write sends (name, labels, annotations, spec, adopt), the same whatever the order of keys:
 * inputs travel through the engine between `check` and `diff`.
 */
function fingerprint(inputs: ObjectInputs): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (typeof value !== "object" || value === null) return value;
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  };
  const { metadata, spec, adopt } = inputs;
  return createHash("sha256")
    .update(JSON.stringify(canonical({ metadata, spec, adopt: adopt ?? false })))
    .digest("hex");
}

/** How one write goes. */
interface WriteOptions {
  /** Ask the API what it would do (dryRun=All) and store nothing. */
  dryRun?: boolean;
  /** The write takes over an existing object (`adopt`): server-side apply forces. */
  adopting?: boolean;
}

/** The dynamic provider of one kind: check, diff, create, read, update and delete over the HTTP API. */
export class ObjectProvider implements pulumi.dynamic.ResourceProvider {
  private readonly behaviour;
  /**
   * Fingerprints of the inputs `check` returned in this process. The engine diffs the program's checked inputs
   * at preview and up, but `pulumi refresh` also calls `diff` (the refreshed outputs against the stored inputs)
   * without running the program: a server dry run there would ask about an update nobody is making, and fail
   * the refresh on a conflict the refresh should only report.
   */
  private readonly checked = new Set<string>();

  constructor(private readonly kind: KindName) {
    this.behaviour = KIND_BEHAVIOUR[kind];
  }

  async configure(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
    configure(request.config);
  }

  async check(olds: Partial<ObjectInputs>, news: ObjectInputs): Promise<pulumi.dynamic.CheckResult> {
    const inputs = { ...news, ...this.chooseName(olds, news) };
    // Messages start with their path. A failure names no property: the engine would print the value of a
    // top-level input there, and a spec can hold secrets.
    const failure = (reason: string) => ({ property: "", reason });
    // Metadata syntax is not among the pack's rules, so check reports it whatever the setting below.
    const metadataFailures = isUnknown(inputs.metadata) ? [] : metadataProblems(inputs.metadata).map(failure);
    if (isUnknown(news.spec)) return { inputs, failures: metadataFailures };
    const specFailures = checkDefersToPolicies()
      ? []
      : validateSpec(this.kind, news.spec)
          .filter((violation) => violation.severity === "error")
          .map((violation) => failure(violation.message));
    // A program without a spec (JavaScript, or a cast) gets the schema's message, not a serialization error.
    const { spec, ...rest } = inputs;
    const checked = spec === undefined ? rest : { ...rest, spec: applyDefaults(this.kind, spec) };
    const failures = [...metadataFailures, ...specFailures];
    if (spec !== undefined) this.checked.add(fingerprint(checked as ObjectInputs));
    // A new resource (no olds): what `up` will create, asked of the API first when serverDryRun is on.
    if (failures.length === 0 && spec !== undefined && Object.keys(olds).length === 0) {
      const refusal = await this.serverDryRun(checked as ObjectInputs, (client, object) =>
        this.createObject(client, object, newCreateToken(), { dryRun: true }),
      );
      if (refusal !== undefined) failures.push(failure(refusal));
    }
    return { inputs: checked, failures };
  }

  /**
   * With `exampledev:serverDryRun` (and an API address): runs `write` as a dry run (dryRun=All, nothing is
   * stored) and returns the API's refusal, if any, as a message. The dynamic provider protocol gives `check`
   * and `diff` no way to tell a preview from an update (the host never passes the engine's preview flag),
   * so this runs in both: an `up` asks first, then writes.
   */
  private async serverDryRun(
    inputs: ObjectInputs,
    write: (client: Client, inputs: ObjectInputs) => Promise<unknown>,
  ): Promise<string | undefined> {
    if (!serverDryRunEnabled()) return undefined;
    // During preview a value that comes from another resource is unknown: nothing to ask yet.
    if (containsUnknown({ metadata: inputs.metadata, spec: inputs.spec, adopt: inputs.adopt }))
      return undefined;
    try {
      await write(clientFor(), inputs);
      return undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return `the API refused this on a server dry run (dryRun=All, nothing was written): ${message}`;
    }
  }

  /** The object's name: the program's, else the one generated earlier (kept in state), else a new one. */
  private chooseName(
    olds: Partial<ObjectInputs>,
    news: ObjectInputs,
  ): Pick<ObjectInputs, "metadata" | "autoNamed"> {
    const metadata = news.metadata ?? {};
    // Unknown during preview (computed from another resource's output): leave it for the engine to resolve.
    if (isUnknown(metadata) || metadata.name !== undefined) return { metadata, autoNamed: false };
    const keep = olds.autoNamed && olds.metadata?.name !== undefined && olds.logicalName === news.logicalName;
    return {
      metadata: {
        ...metadata,
        name: keep ? (olds.metadata?.name as string) : autoName(news.logicalName ?? ""),
      },
      autoNamed: true,
    };
  }

  async diff(_id: string, olds: ObjectOutputs, news: ObjectInputs): Promise<pulumi.dynamic.DiffResult> {
    const specChanged = !isDeepStrictEqual(olds.spec, news.spec);
    // The schema's rules about changes say what the API cannot apply in place; each path is a replace reason.
    const changeViolations = specChanged ? validateUpdate(this.kind, olds.spec, news.spec) : [];
    const replaces = [
      ...(olds.metadata.name !== news.metadata.name ? ["metadata.name"] : []),
      ...new Set(changeViolations.map((violation) => violation.path)),
    ];
    // A replacement under the same name must delete first: the API holds one object per name.
    const deleteBeforeReplace = replaces.length > 0 && olds.metadata.name === news.metadata.name;
    if (deleteBeforeReplace) this.refuseDoomedReplacement(news, replaces);
    const metadataChanged =
      !isDeepStrictEqual(olds.metadata.labels, news.metadata.labels) ||
      !isDeepStrictEqual(olds.metadata.annotations, news.metadata.annotations);
    const changes = specChanged || metadataChanged || replaces.length > 0;
    if (changes) await this.dryRunChange(olds, news, replaces, deleteBeforeReplace);
    return { changes, replaces, deleteBeforeReplace };
  }

  /**
   * With serverDryRun: the update, or the replacement's create under a new name, asked of the API first. A
   * replacement under the same name deletes first, so its create cannot be asked before (the name is taken
   * until then); `refuseDoomedReplacement` checks its spec instead.
   */
  private async dryRunChange(
    olds: ObjectOutputs,
    news: ObjectInputs,
    replaces: string[],
    deleteBeforeReplace: boolean,
  ): Promise<void> {
    // Not a diff of the program's inputs (a refresh's), or a replacement that deletes first: nothing to ask.
    if (deleteBeforeReplace || !this.checked.has(fingerprint(news))) return;
    const refusal = await this.serverDryRun(news, (client, inputs) =>
      replaces.length === 0
        ? this.writeUpdate(client, olds, inputs, { dryRun: true })
        : this.createObject(client, inputs, newCreateToken(), { dryRun: true }),
    );
    if (refusal !== undefined) {
      const step = replaces.length === 0 ? "update" : "create of the replacement";
      throw new Error(`${this.kind} "${news.metadata.name}": the ${step} failed: ${refusal}`);
    }
  }

  /**
   * A delete-before-replace removes the live object before the new one is created: if the API is going to
   * refuse the new spec, fail here, before anything is deleted (`check` may have left spec errors to the
   * policy pack).
   */
  private refuseDoomedReplacement(news: ObjectInputs, replaces: string[]): void {
    const errors = validateSpec(this.kind, news.spec).filter((violation) => violation.severity === "error");
    if (errors.length === 0) return;
    throw new Error(
      `${this.kind} "${news.metadata.name}" would be replaced (${replaces.join(", ")} cannot change in place), ` +
        `which deletes it before creating the new one, but the API would refuse the new spec; nothing was changed. ` +
        `Fix: ${errors.map((violation) => violation.message).join("; ")}`,
    );
  }

  async create(inputs: ObjectInputs): Promise<pulumi.dynamic.CreateResult> {
    const client = clientFor();
    const object = await this.createObject(client, inputs, newCreateToken());
    return { id: inputs.metadata.name, outs: await this.settle(client, inputs, object) };
  }

  /**
   * Creates with a token unique to this create, so that a replay after a lost answer, or a lookup after
   * retries ran out, recognises the object as this create's and nothing else as ours. An object of the same
   * name that lacks the token is someone else's: taken over only with `adopt`.
   */
  private async createObject(
    client: Client,
    inputs: ObjectInputs,
    createToken: string,
    options: WriteOptions = {},
  ): Promise<AnyObject> {
    const name = inputs.metadata.name;
    try {
      return writeMode().serverSideApply
        ? await this.applyCreate(client, inputs, createToken, options)
        : await this.postCreate(client, inputs, createToken, options);
    } catch (error) {
      if (error instanceof CreateUnconfirmedError) {
        const message = `${error.message}. It is kept in state; the next \`pulumi up\` finishes the create, \`pulumi refresh\` or \`pulumi destroy\` finds it by its create token`;
        throw new PartialFailure(
          message,
          name,
          this.withProvider(unconfirmedOutputs(inputs, createToken), inputs),
          [message],
        );
      }
      if (!(error instanceof NameTaken)) throw error;
      if (!inputs.adopt) {
        const answer =
          error.answer instanceof AlreadyExistsError ? ` (the API: ${error.answer.message})` : "";
        throw new Error(
          `${this.kind} "${name}" already exists on the server and is not managed by this stack${answer}. ` +
            `To take it over, set \`adopt: true\` on the resource (its spec is then replaced by the program's); ` +
            `otherwise choose another metadata.name or delete the existing object.`,
        );
      }
    }
    return this.write(client, inputs, { createToken }, { ...options, adopting: true });
  }

  /** POST; a 409 AlreadyExists whose object lacks the token (the client looks) is `NameTaken`. */
  private async postCreate(
    client: Client,
    inputs: ObjectInputs,
    createToken: string,
    options: WriteOptions,
  ): Promise<AnyObject> {
    try {
      return await this.accessor(client).create(apiObject(this.kind, KINDS[this.kind].apiVersion, inputs), {
        fieldValidation: "Strict",
        fieldManager: FIELD_MANAGER,
        createToken,
        ...(options.dryRun && { dryRun: "All" as const }),
      });
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      // A dry run looks nothing up in the client: an unconfirmed create of ours may be what holds the name.
      if (options.dryRun) {
        const stored = await this.find(client, inputs.metadata.name);
        if (stored !== undefined && createTokenOf(stored) === createToken) return stored;
      }
      throw new NameTaken(error);
    }
  }

  /**
   * Server-side apply that only creates: the configuration carries a uid no object has (a fresh random one),
   * and the API checks a uid in the body against an existing object (409) and ignores it on a create. So an
   * existing object is never merged into: the 409 is looked at like a POST's AlreadyExists, by the token.
   */
  private async applyCreate(
    client: Client,
    inputs: ObjectInputs,
    createToken: string,
    options: WriteOptions,
  ): Promise<AnyObject> {
    const name = inputs.metadata.name;
    const body = apiObject(this.kind, KINDS[this.kind].apiVersion, inputs, {
      createToken,
      uid: randomUUID(),
    });
    let error: unknown;
    try {
      return await this.accessor(client).apply(name, body, {
        fieldManager: FIELD_MANAGER,
        fieldValidation: "Strict",
        ...(options.dryRun && { dryRun: "All" as const }),
      });
    } catch (failure) {
      error = failure;
    }
    const taken = error instanceof ConflictError && fieldConflicts(error) === undefined;
    if (!taken && (options.dryRun || !mayHaveStored(error))) throw error;
    let stored: AnyObject | undefined;
    try {
      stored = await this.find(client, name);
    } catch (lookupError) {
      if (options.dryRun) throw lookupError;
      throw new CreateUnconfirmedError(`${this.kind} "${name}"`, name, error as Error, lookupError);
    }
    if (stored !== undefined && createTokenOf(stored) === createToken) return stored;
    if (taken && stored !== undefined) throw new NameTaken(error);
    throw error;
  }

  async read(id: string, state: ObjectOutputs): Promise<pulumi.dynamic.ReadResult> {
    const object = await this.managedObject(clientFor(), id, state);
    if (object === undefined) return { id: "", props: {} };
    const { serverSideApply } = writeMode();
    return { id, props: refreshedOutputs(this.kind, state, object, { serverSideApply }) };
  }

  async update(_id: string, olds: ObjectOutputs, news: ObjectInputs): Promise<pulumi.dynamic.UpdateResult> {
    const client = clientFor();
    const object = await this.writeUpdate(client, olds, news);
    return { outs: await this.settle(client, news, object) };
  }

  private async writeUpdate(
    client: Client,
    olds: ObjectOutputs,
    news: ObjectInputs,
    options: WriteOptions = {},
  ): Promise<AnyObject> {
    const { uid } = olds.metadata;
    const createToken = olds.createToken;
    let target = uid;
    // A create whose outcome was unknown (no uid in state) is finished first, with the same token.
    if (uid === undefined && createToken !== undefined) {
      const made = await this.createObject(client, news, createToken, options);
      // A dry run of that create answers a would-be object (no resourceVersion): there is nothing to update.
      if (options.dryRun && made.metadata.resourceVersion === undefined) return made;
      target = made.metadata.uid;
    }
    return this.write(client, news, { uid: target, createToken }, options);
  }

  async delete(id: string, state: ObjectOutputs): Promise<void> {
    const client = clientFor();
    // Only the object this resource manages, named by its uid: never another object that took the name.
    const uid = state.metadata.uid ?? (await this.managedObject(client, id, state))?.metadata.uid;
    if (uid === undefined) return;
    try {
      await this.accessor(client).delete(id, { preconditions: { uid } });
    } catch (error) {
      // Gone, or the name now holds another object (409 on the uid precondition): ours is gone either way.
      if (error instanceof NotFoundError || error instanceof ConflictError) return;
      throw error;
    }
    await this.await(client, id, deleted(uid), state.await?.timeoutSeconds);
  }

  /** Writes the declared object over the existing one: a server-side apply or a PUT, per the settings. */
  private write(
    client: Client,
    inputs: ObjectInputs,
    expected: Expected,
    options: WriteOptions = {},
  ): Promise<AnyObject> {
    return writeMode().serverSideApply
      ? this.applyUpdate(client, inputs, expected, options)
      : this.replace(client, inputs, expected, options);
  }

  /**
   * PUT the declared object over the current one, re-reading on a conflict (the controller writes status).
   * With `uid`, only that very object is written: another object under the name is an error, not a target.
   */
  private async replace(
    client: Client,
    inputs: ObjectInputs,
    expected: Expected,
    options: WriteOptions,
  ): Promise<AnyObject> {
    const accessor = this.accessor(client);
    const name = inputs.metadata.name;
    for (let attempt = 1; ; attempt++) {
      const current = await this.target(client, name, expected);
      const body = apiObject(this.kind, KINDS[this.kind].apiVersion, inputs, {
        resourceVersion: current.metadata.resourceVersion,
        ...(expected.createToken !== undefined && { createToken: expected.createToken }),
      });
      try {
        return await accessor.replace(name, body, {
          fieldValidation: "Strict",
          fieldManager: FIELD_MANAGER,
          ...(options.dryRun && { dryRun: "All" as const }),
        });
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= UPDATE_CONFLICT_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Server-side apply of the declared object as FIELD_MANAGER. The configuration names the object just read
   * by its uid and resourceVersion: the API refuses (409) to write another object under the name, and an
   * apply to a missing object would create it, which an update must not (the version makes that a 409 too).
   * A 409 without field conflicts (the controller wrote status meanwhile) reads again, like the PUT.
   *
   * Conflicts: fields the provider itself wrote earlier (POST/PUT, see `isOwnManager`) are taken over at
   * once; fields another manager owns and the program sets to another value fail the update, naming the
   * manager and the fields, unless `exampledev:serverSideApplyForce` is on or the resource is being adopted.
   */
  private async applyUpdate(
    client: Client,
    inputs: ObjectInputs,
    expected: Expected,
    options: WriteOptions,
  ): Promise<AnyObject> {
    const accessor = this.accessor(client);
    const name = inputs.metadata.name;
    const force = writeMode().force || options.adopting === true;
    for (let attempt = 1; ; attempt++) {
      const retry = (error: unknown) => {
        if (!(error instanceof ConflictError) || attempt >= UPDATE_CONFLICT_ATTEMPTS) throw error;
      };
      let current = await this.target(client, name, expected);
      const migration = options.dryRun ? undefined : ownershipMigration(current);
      if (migration !== undefined) {
        try {
          const { resourceVersion } = current.metadata;
          current = await accessor.patch(
            name,
            { metadata: { resourceVersion, managedFields: migration } },
            { type: "merge", fieldManager: FIELD_MANAGER },
          );
        } catch (error) {
          retry(error);
          continue;
        }
      }
      const body = apiObject(this.kind, KINDS[this.kind].apiVersion, inputs, {
        uid: current.metadata.uid,
        resourceVersion: current.metadata.resourceVersion,
        ...(expected.createToken !== undefined && { createToken: expected.createToken }),
      });
      const apply = (withForce: boolean) =>
        accessor.apply(name, body, {
          fieldManager: FIELD_MANAGER,
          force: withForce,
          fieldValidation: "Strict",
          ...(options.dryRun && { dryRun: "All" as const }),
        });
      try {
        return await apply(force);
      } catch (error) {
        const conflicts = fieldConflicts(error);
        if (conflicts === undefined) {
          retry(error);
          continue;
        }
        const others = conflicts.filter((conflict) => !isOwnManager(conflict.manager, current));
        if (others.length > 0) throw conflictFailure(this.kind, name, error as ApiError, others);
      }
      // Only the provider's own earlier writes hold the fields: take them over.
      try {
        return await apply(true);
      } catch (error) {
        retry(error);
      }
    }
  }

  /**
   * The object under `name`, if it is the one to write: with `uid`, only that very object; another object
   * under the name is an error, not a target.
   */
  private async target(client: Client, name: string, expected: Expected): Promise<AnyObject> {
    const current = await this.find(client, name);
    if (current === undefined) {
      throw new Error(
        `${this.kind} "${name}" no longer exists on the server (deleted outside Pulumi): run \`pulumi refresh\` ` +
          `to drop it from state, then \`pulumi up\` creates it again`,
      );
    }
    if (expected.uid !== undefined && current.metadata.uid !== expected.uid) {
      throw new Error(
        `${this.kind} "${name}" on the server is not the object this stack manages (uid ${current.metadata.uid}, ` +
          `not ${expected.uid}): it was deleted and created again outside Pulumi. Run \`pulumi refresh\` to drop ` +
          `the old one from state; the next \`pulumi up\` then asks for \`adopt: true\` to take over the new one`,
      );
    }
    return current;
  }

  /**
   * Waits for the kind's readiness after a write. Any error from here on keeps the object in state as
   * partially created (it exists on the server), with the last object seen.
   */
  private async settle(client: Client, inputs: ObjectInputs, written: AnyObject): Promise<ObjectOutputs> {
    const readiness = this.behaviour.readiness;
    if (readiness === undefined || inputs.await?.skip) return outputsOf(inputs, written);
    const name = inputs.metadata.name;
    try {
      const ready = await this.await(client, name, readiness(written), inputs.await?.timeoutSeconds);
      return outputsOf(inputs, ready ?? written);
    } catch (error) {
      const lastSeen =
        (error instanceof WaitFailedError && (error.lastSeen as AnyObject | undefined)) || written;
      const cause = error instanceof Error ? error.message : String(error);
      const message = `${this.kind} "${name}" was written but did not become ready: ${cause}`;
      throw new PartialFailure(message, name, this.withProvider(outputsOf(inputs, lastSeen), inputs), [
        message,
      ]);
    }
  }

  private await(
    client: Client,
    name: string,
    condition: Condition<AnyObject | undefined>,
    timeoutSeconds?: number,
  ) {
    return waitFor(watchSource(this.accessor(client)), name, condition, {
      timeoutMs: (timeoutSeconds ?? DEFAULT_AWAIT_SECONDS) * 1000,
    });
  }

  /** A partially created resource's properties must carry the serialized provider, or the engine loses it. */
  private withProvider(outputs: ObjectOutputs, inputs: ObjectInputs): ObjectOutputs {
    return { ...outputs, __provider: inputs.__provider } as ObjectOutputs;
  }

  /** The object under `name` if it is the one `state` manages (see `isManaged`). */
  private async managedObject(client: Client, name: string, state: ObjectOutputs) {
    const object = await this.find(client, name);
    return object !== undefined && isManaged(state, object) ? object : undefined;
  }

  private async find(
    client: Client,
    name: string,
    options: CallOptions = {},
  ): Promise<AnyObject | undefined> {
    try {
      return await this.accessor(client).get(name, options);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  private accessor(client: Client) {
    return this.behaviour.accessor(client);
  }
}
