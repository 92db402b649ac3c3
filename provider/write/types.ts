import type { ResourceClient } from "../../sdk/client";
import { ExampledevError } from "../../sdk/errors";
import type { KindName } from "../../sdk/schema";
import type { AnyObject } from "../kinds";
import type { ObjectInputs } from "../state";

/** One kind's client, as the writes use it. */
export type Accessor = ResourceClient<AnyObject, unknown>;

/** How one write goes. */
export interface WriteOptions {
  /** Ask the API what it would do (dryRun=All) and store nothing. */
  dryRun?: boolean;
  /** The write takes over an existing object (`adopt`): server-side apply forces. */
  adopting?: boolean;
}

/** The object a write may touch: the one with `uid` (when known), carrying the create's token. */
export interface Expected {
  uid?: string | undefined;
  createToken?: string | undefined;
}

/** An object of the name exists and is not this create's (the API said so: 409). */
export class NameTaken extends ExampledevError {
  constructor(readonly answer: unknown) {
    super(answer instanceof Error ? answer.message : String(answer));
  }
}

/**
 * One way of writing objects: POST and PUT, or server-side apply. Each recognises the object of its own
 * create after an ambiguous answer (by the create token) and reports any other object under the name as
 * `NameTaken`; an update writes only the object `expected` names.
 */
export interface WriteStrategy {
  /** Creates the object carrying `createToken`. */
  create(inputs: ObjectInputs, createToken: string, options: WriteOptions): Promise<AnyObject>;
  /** Writes the declared object over the existing one, reading it again after a conflict. */
  update(inputs: ObjectInputs, expected: Expected, options: WriteOptions): Promise<AnyObject>;
}

/** What every strategy is built from. */
export interface WriteContext {
  kind: KindName;
  accessor: Accessor;
}
