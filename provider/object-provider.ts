import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import { AlreadyExistsError, type Client, ConflictError, NotFoundError } from "../sdk/client";
import {
  applyDefaults,
  isUnknown,
  KINDS,
  type KindName,
  metadataProblems,
  validateSpec,
} from "../sdk/schema";
import type { Condition } from "./await/condition";
import { deleted } from "./await/conditions";
import { WaitFailedError, waitFor } from "./await/wait";
import { checkDefersToPolicies, clientFor, configure } from "./clients";
import { type AnyObject, KIND_BEHAVIOUR } from "./kinds";
import { autoName } from "./naming";
import { apiObject, type ObjectInputs, type ObjectOutputs, outputsOf, refreshedOutputs } from "./state";

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
    const replaces = [
      ...(olds.metadata.name !== news.metadata.name ? ["metadata.name"] : []),
      ...(specChanged ? this.behaviour.replacedBy(olds.spec, news.spec) : []),
    ];
    const metadataChanged =
      !isDeepStrictEqual(olds.metadata.labels, news.metadata.labels) ||
      !isDeepStrictEqual(olds.metadata.annotations, news.metadata.annotations);
    return {
      changes: specChanged || metadataChanged || replaces.length > 0,
      replaces,
      // A replacement under the same name must delete first: the API holds one object per name.
      deleteBeforeReplace: replaces.length > 0 && olds.metadata.name === news.metadata.name,
    };
  }

  async create(inputs: ObjectInputs): Promise<pulumi.dynamic.CreateResult> {
    const client = clientFor();
    const name = inputs.metadata.name;
    let object: AnyObject;
    try {
      object = await this.accessor(client).create(apiObject(this.kind, KINDS[this.kind].apiVersion, inputs), {
        fieldValidation: "Strict",
        adoptOwnRetry: true,
      });
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      if (!inputs.adopt) {
        throw new Error(
          `${this.kind} "${name}" already exists on the server and is not managed by this stack. ` +
            `To take it over, set \`adopt: true\` on the resource (its spec is then replaced by the program's); ` +
            `otherwise choose another metadata.name or delete the existing object.`,
        );
      }
      object = await this.replace(client, inputs);
    }
    return { id: name, outs: await this.settle(client, inputs, object) };
  }

  async read(id: string, state: ObjectOutputs): Promise<pulumi.dynamic.ReadResult> {
    const object = await this.find(clientFor(), id);
    if (object === undefined) return { id: "", props: {} };
    return { id, props: refreshedOutputs(this.kind, state, object) };
  }

  async update(_id: string, _olds: ObjectOutputs, news: ObjectInputs): Promise<pulumi.dynamic.UpdateResult> {
    const client = clientFor();
    const object = await this.replace(client, news);
    return { outs: await this.settle(client, news, object) };
  }

  async delete(id: string, state: ObjectOutputs): Promise<void> {
    const client = clientFor();
    try {
      await this.accessor(client).delete(id);
    } catch (error) {
      if (error instanceof NotFoundError) return;
      throw error;
    }
    await this.await(client, id, deleted(), state.await?.timeoutSeconds);
  }

  /** PUT the declared object over the current one, re-reading on a conflict (the controller writes status). */
  private async replace(client: Client, inputs: ObjectInputs): Promise<AnyObject> {
    const accessor = this.accessor(client);
    const name = inputs.metadata.name;
    for (let attempt = 1; ; attempt++) {
      const current = await accessor.get(name);
      const body = apiObject(
        this.kind,
        KINDS[this.kind].apiVersion,
        inputs,
        current.metadata.resourceVersion,
      );
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
      const properties = { ...outputsOf(this.kind, inputs, lastSeen), __provider: inputs.__provider };
      throw new PartialFailure(message, name, properties as ObjectOutputs, [message]);
    }
  }

  private await(
    client: Client,
    name: string,
    condition: Condition<AnyObject | undefined>,
    timeoutSeconds?: number,
  ) {
    return waitFor(() => this.find(client, name), condition, {
      timeoutMs: (timeoutSeconds ?? DEFAULT_AWAIT_SECONDS) * 1000,
    });
  }

  private async find(client: Client, name: string): Promise<AnyObject | undefined> {
    try {
      return await this.accessor(client).get(name);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  private accessor(client: Client) {
    return this.behaviour.accessor(client);
  }
}
