import { randomUUID } from "node:crypto";
import { type ApiError, ConflictError } from "../../sdk/client";
import { isOwnCreate, mayHaveStored, storedAfterFailedCreate } from "../../sdk/client/own-create";
import { KINDS } from "../../sdk/schema";
import { conflictFailure, FIELD_MANAGER, fieldConflicts, isOwnManager, ownershipMigration } from "../apply";
import type { AnyObject } from "../kinds";
import { apiObject, type ObjectInputs } from "../state";
import { retryOnConflict } from "./retry-on-conflict";
import { find, writeTarget } from "./target";
import { type Expected, NameTaken, type WriteContext, type WriteOptions, type WriteStrategy } from "./types";

/** Server-side apply as FIELD_MANAGER (`exampledev:serverSideApply`). */
export class ServerSideApply implements WriteStrategy {
  /** `force`: take over fields other managers own (`exampledev:serverSideApplyForce`). */
  constructor(
    private readonly context: WriteContext,
    private readonly force: boolean,
  ) {}

  /**
   * An apply that only creates: the configuration carries a uid no object has (a fresh random one), and the
   * API checks a uid in the body against an existing object (409) and ignores it on a create. So an existing
   * object is never merged into: the 409, like an answer that may have been lost, is settled by the token.
   */
  async create(inputs: ObjectInputs, createToken: string, options: WriteOptions): Promise<AnyObject> {
    const { kind, accessor } = this.context;
    const name = inputs.metadata.name;
    const body = apiObject(kind, KINDS[kind].apiVersion, inputs, { createToken, uid: randomUUID() });
    let error: unknown;
    try {
      return await accessor.apply(name, body, this.options(options));
    } catch (failure) {
      error = failure;
    }
    const taken = error instanceof ConflictError && fieldConflicts(error) === undefined;
    if (!taken && (options.dryRun || !mayHaveStored(error))) throw error;
    const lookUp = () => find(accessor, name);
    // A dry run stored nothing: a failed lookup is only a failed dry run.
    const stored = options.dryRun
      ? await lookUp()
      : await storedAfterFailedCreate(`${kind} "${name}"`, name, error as Error, lookUp);
    if (isOwnCreate(stored, createToken)) return stored;
    if (taken && stored !== undefined) throw new NameTaken(error);
    throw error;
  }

  /**
   * The configuration names the object just read by its uid and resourceVersion: the API refuses (409) to
   * write another object under the name, and an apply to a missing object would create it, which an update
   * must not (the version makes that a 409 too). A 409 without field conflicts (the controller wrote status
   * meanwhile) reads again, like the PUT.
   *
   * Conflicts: fields the provider itself wrote earlier (POST/PUT, see `isOwnManager`) are taken over at
   * once; fields another manager owns and the program sets to another value fail the update, naming the
   * manager and the fields, unless `force` is on or the resource is being adopted.
   */
  update(inputs: ObjectInputs, expected: Expected, options: WriteOptions): Promise<AnyObject> {
    const { kind, accessor } = this.context;
    const name = inputs.metadata.name;
    const force = this.force || options.adopting === true;
    return retryOnConflict(async () => {
      let current = await writeTarget(kind, accessor, name, expected);
      const migration = options.dryRun ? undefined : ownershipMigration(current);
      if (migration !== undefined) {
        const { resourceVersion } = current.metadata;
        current = await accessor.patch(
          name,
          { metadata: { resourceVersion, managedFields: migration } },
          { type: "merge", fieldManager: FIELD_MANAGER },
        );
      }
      const body = apiObject(kind, KINDS[kind].apiVersion, inputs, {
        uid: current.metadata.uid,
        resourceVersion: current.metadata.resourceVersion,
        ...(expected.createToken !== undefined && { createToken: expected.createToken }),
      });
      const apply = (withForce: boolean) =>
        accessor.apply(name, body, { ...this.options(options), force: withForce });
      try {
        return await apply(force);
      } catch (error) {
        const conflicts = fieldConflicts(error);
        if (conflicts === undefined) throw error;
        const owner = current;
        const others = conflicts.filter((conflict) => !isOwnManager(conflict.manager, owner));
        if (others.length > 0) throw conflictFailure(kind, name, error as ApiError, others);
      }
      // Only the provider's own earlier writes hold the fields: take them over.
      return apply(true);
    });
  }

  private options(options: WriteOptions) {
    return {
      fieldManager: FIELD_MANAGER,
      fieldValidation: "Strict" as const,
      ...(options.dryRun && { dryRun: "All" as const }),
    };
  }
}
