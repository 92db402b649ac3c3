import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import {
  AlreadyExistsError,
  type CallOptions,
  type Client,
  ConflictError,
  CreateUnconfirmedError,
  NotFoundError,
  newCreateToken,
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
import type { Condition } from "./await/condition";
import { deleted } from "./await/conditions";
import { pollingSource } from "./await/source";
import { WaitFailedError, waitFor } from "./await/wait";
import { checkDefersToPolicies, clientFor, configure } from "./clients";
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

/** The dynamic provider of one kind: check, diff, create, read, update and delete over the HTTP API. */
export class ObjectProvider implements pulumi.dynamic.ResourceProvider {
  private readonly behaviour;

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
    return {
      inputs: spec === undefined ? rest : { ...rest, spec: applyDefaults(this.kind, spec) },
      failures: [...metadataFailures, ...specFailures],
    };
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
      metadata: { ...metadata, name: keep ? (olds.metadata?.name as string) : autoName(news.logicalName) },
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
    return {
      changes: specChanged || metadataChanged || replaces.length > 0,
      replaces,
      deleteBeforeReplace,
    };
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
   * POST with a token unique to this create, so that a replay after a lost answer, or a lookup after retries
   * ran out, recognises the object as this create's and nothing else as ours. An object of the same name
   * that lacks the token is someone else's: taken over only with `adopt`.
   */
  private async createObject(client: Client, inputs: ObjectInputs, createToken: string): Promise<AnyObject> {
    const name = inputs.metadata.name;
    try {
      return await this.accessor(client).create(apiObject(this.kind, KINDS[this.kind].apiVersion, inputs), {
        fieldValidation: "Strict",
        createToken,
      });
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
      if (!(error instanceof AlreadyExistsError)) throw error;
      if (!inputs.adopt) {
        throw new Error(
          `${this.kind} "${name}" already exists on the server and is not managed by this stack. ` +
            `To take it over, set \`adopt: true\` on the resource (its spec is then replaced by the program's); ` +
            `otherwise choose another metadata.name or delete the existing object.`,
        );
      }
      return this.replace(client, inputs, { createToken });
    }
  }

  async read(id: string, state: ObjectOutputs): Promise<pulumi.dynamic.ReadResult> {
    const object = await this.managedObject(clientFor(), id, state);
    if (object === undefined) return { id: "", props: {} };
    return { id, props: refreshedOutputs(this.kind, state, object) };
  }

  async update(_id: string, olds: ObjectOutputs, news: ObjectInputs): Promise<pulumi.dynamic.UpdateResult> {
    const client = clientFor();
    const { uid } = olds.metadata;
    const createToken = olds.createToken;
    // A create whose outcome was unknown (no uid in state) is finished first, with the same token.
    const target =
      uid === undefined && createToken !== undefined
        ? (await this.createObject(client, news, createToken)).metadata.uid
        : uid;
    const object = await this.replace(client, news, { uid: target, createToken });
    return { outs: await this.settle(client, news, object) };
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

  /**
   * PUT the declared object over the current one, re-reading on a conflict (the controller writes status).
   * With `uid`, only that very object is written: another object under the name is an error, not a target.
   */
  private async replace(
    client: Client,
    inputs: ObjectInputs,
    expected: { uid?: string | undefined; createToken?: string | undefined },
  ): Promise<AnyObject> {
    const accessor = this.accessor(client);
    const name = inputs.metadata.name;
    for (let attempt = 1; ; attempt++) {
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
      const body = apiObject(this.kind, KINDS[this.kind].apiVersion, inputs, {
        resourceVersion: current.metadata.resourceVersion,
        ...(expected.createToken !== undefined && { createToken: expected.createToken }),
      });
      try {
        return await accessor.replace(name, body, { fieldValidation: "Strict" });
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= UPDATE_CONFLICT_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Waits for the kind's readiness after a write. Any error from here on keeps the object in state as
   * partially created (it exists on the server), with the last object seen.
   */
  private async settle(client: Client, inputs: ObjectInputs, written: AnyObject): Promise<ObjectOutputs> {
    const readiness = this.behaviour.readiness;
    if (readiness === undefined || inputs.await?.skip) return outputsOf(this.kind, inputs, written);
    const name = inputs.metadata.name;
    try {
      const ready = await this.await(client, name, readiness(written), inputs.await?.timeoutSeconds);
      return outputsOf(this.kind, inputs, ready ?? written);
    } catch (error) {
      const lastSeen =
        (error instanceof WaitFailedError && (error.lastSeen as AnyObject | undefined)) || written;
      const cause = error instanceof Error ? error.message : String(error);
      const message = `${this.kind} "${name}" was written but did not become ready: ${cause}`;
      throw new PartialFailure(
        message,
        name,
        this.withProvider(outputsOf(this.kind, inputs, lastSeen), inputs),
        [message],
      );
    }
  }

  private await(
    client: Client,
    name: string,
    condition: Condition<AnyObject | undefined>,
    timeoutSeconds?: number,
  ) {
    const source = pollingSource((objectName, signal) => this.find(client, objectName, { signal }));
    return waitFor(source, name, condition, {
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
