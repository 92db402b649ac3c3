import { AlreadyExistsError } from "../../sdk/client";
import { isOwnCreate } from "../../sdk/client/own-create";
import { KINDS } from "../../sdk/schema";
import { FIELD_MANAGER } from "../apply";
import type { AnyObject } from "../kinds";
import { apiObject, type ObjectInputs } from "../state";
import { retryOnConflict } from "./retry-on-conflict";
import { find, writeTarget } from "./target";
import { type Expected, NameTaken, type WriteContext, type WriteOptions, type WriteStrategy } from "./types";

/** POST to create, PUT over the object read just before to update (the default). */
export class PostPut implements WriteStrategy {
  constructor(private readonly context: WriteContext) {}

  /**
   * POST. After a lost answer the client itself finds the object by its token; a 409 AlreadyExists whose
   * object lacks the token is `NameTaken`.
   */
  async create(inputs: ObjectInputs, createToken: string, options: WriteOptions): Promise<AnyObject> {
    const { kind, accessor } = this.context;
    try {
      return await accessor.create(apiObject(kind, KINDS[kind].apiVersion, inputs), {
        fieldValidation: "Strict",
        fieldManager: FIELD_MANAGER,
        createToken,
        ...(options.dryRun && { dryRun: "All" as const }),
      });
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      // A dry run looks nothing up in the client: an unconfirmed create of ours may be what holds the name.
      if (options.dryRun) {
        const stored = await find(accessor, inputs.metadata.name);
        if (isOwnCreate(stored, createToken)) return stored;
      }
      throw new NameTaken(error);
    }
  }

  /** PUT the declared object over the current one; with `uid`, only that very object. */
  update(inputs: ObjectInputs, expected: Expected, options: WriteOptions): Promise<AnyObject> {
    const { kind, accessor } = this.context;
    const name = inputs.metadata.name;
    return retryOnConflict(async () => {
      const current = await writeTarget(kind, accessor, name, expected);
      const body = apiObject(kind, KINDS[kind].apiVersion, inputs, {
        resourceVersion: current.metadata.resourceVersion,
        ...(current.metadata.finalizers && { finalizers: current.metadata.finalizers }),
        ...(expected.createToken !== undefined && { createToken: expected.createToken }),
      });
      return accessor.replace(name, body, {
        fieldValidation: "Strict",
        fieldManager: FIELD_MANAGER,
        ...(options.dryRun && { dryRun: "All" as const }),
      });
    });
  }
}
