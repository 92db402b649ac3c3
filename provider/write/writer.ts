import { AlreadyExistsError, CreateUnconfirmedError } from "../../sdk/client";
import type { KindName } from "../../sdk/schema";
import type { AnyObject } from "../kinds";
import { partialFailure } from "../partial-failure";
import { type ObjectInputs, type ObjectOutputs, unconfirmedOutputs } from "../state";
import { NameTaken, type WriteOptions, type WriteStrategy } from "./types";

/** The creates and updates of one kind's resources, written with one strategy; never a silent upsert. */
export class ObjectWriter {
  constructor(
    private readonly kind: KindName,
    private readonly strategy: WriteStrategy,
  ) {}

  /**
   * Creates with a token unique to this create, so that a replay after a lost answer, or a lookup after
   * retries ran out, recognises the object as this create's and nothing else as ours. An object of the same
   * name that lacks the token is someone else's: taken over only with `adopt`.
   */
  async create(inputs: ObjectInputs, createToken: string, options: WriteOptions = {}): Promise<AnyObject> {
    const name = inputs.metadata.name;
    try {
      return await this.strategy.create(inputs, createToken, options);
    } catch (error) {
      if (error instanceof CreateUnconfirmedError) {
        const message = `${error.message}. It is kept in state; the next \`pulumi up\` finishes the create, \`pulumi refresh\` or \`pulumi destroy\` finds it by its create token`;
        throw partialFailure(message, inputs, unconfirmedOutputs(inputs, createToken));
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
    return this.strategy.update(inputs, { createToken }, { ...options, adopting: true });
  }

  /** Writes `news` over the object `olds` manages, named by its uid. */
  async update(olds: ObjectOutputs, news: ObjectInputs, options: WriteOptions = {}): Promise<AnyObject> {
    const { uid } = olds.metadata;
    const createToken = olds.createToken;
    let target = uid;
    // A create whose outcome was unknown (no uid in state) is finished first, with the same token.
    if (uid === undefined && createToken !== undefined) {
      const made = await this.create(news, createToken, options);
      // A dry run of that create answers a would-be object (no resourceVersion): there is nothing to update.
      if (options.dryRun && made.metadata.resourceVersion === undefined) return made;
      target = made.metadata.uid;
    }
    return this.strategy.update(news, { uid: target, createToken }, options);
  }
}
