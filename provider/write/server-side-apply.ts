import type { ApiError } from "../../sdk/client";
import { KINDS } from "../../sdk/schema";
import { conflictFailure, FIELD_MANAGER, fieldConflicts, isOwnManager, ownershipMigration } from "../apply";
import type { AnyObject } from "../kinds";
import { apiObject, type ObjectInputs } from "../state";
import { PostPut } from "./post-put";
import { retryOnConflict } from "./retry-on-conflict";
import { writeTarget } from "./target";
import type { Expected, WriteContext, WriteOptions, WriteStrategy } from "./types";

/** Server-side apply as FIELD_MANAGER (`exampledev:serverSideApply`). */
export class ServerSideApply implements WriteStrategy {
  private readonly post: PostPut;

  /** `force`: take over fields other managers own (`exampledev:serverSideApplyForce`). */
  constructor(
    private readonly context: WriteContext,
    private readonly force: boolean,
  ) {
    this.post = new PostPut(context);
  }

  /**
   * A POST as FIELD_MANAGER, then its `Update` entry made the provider's `Apply` entry (`ownershipMigration`),
   * so the object is managed by apply from the start. Kubernetes has no apply that only creates (an apply
   * merges into an object that holds the name, and one naming a uid never creates), and a create must never
   * take over another stack's object. If the second step fails, the object is this stack's by its token:
   * the next `up` finds it (409, then the token) and moves the entry then.
   */
  async create(inputs: ObjectInputs, createToken: string, options: WriteOptions): Promise<AnyObject> {
    const created = await this.post.create(inputs, createToken, options);
    if (options.dryRun) return created;
    const { kind, accessor } = this.context;
    const expected = { uid: created.metadata.uid, createToken };
    // The POST's answer first; after a 409 (the controller wrote status meanwhile), the object read again.
    let known: AnyObject | undefined = created;
    return retryOnConflict(async () => {
      const target = known ?? (await writeTarget(kind, accessor, inputs.metadata.name, expected));
      known = undefined;
      return this.ownedByApply(target);
    });
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
      const target = await writeTarget(kind, accessor, name, expected);
      const current = options.dryRun ? target : await this.ownedByApply(target);
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

  /** `current` with the provider's own `Update` entries merged into its `Apply` entry (one PATCH, if any). */
  private async ownedByApply(current: AnyObject): Promise<AnyObject> {
    const migration = ownershipMigration(current);
    if (migration === undefined) return current;
    const { name, resourceVersion } = current.metadata;
    return this.context.accessor.patch(
      name,
      { metadata: { resourceVersion, managedFields: migration } },
      { type: "merge", fieldManager: FIELD_MANAGER },
    );
  }

  private options(options: WriteOptions) {
    return {
      fieldManager: FIELD_MANAGER,
      fieldValidation: "Strict" as const,
      ...(options.dryRun && { dryRun: "All" as const }),
    };
  }
}
