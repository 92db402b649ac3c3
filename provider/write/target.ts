import { NotFoundError } from "../../sdk/client";
import type { KindName } from "../../sdk/schema";
import type { AnyObject } from "../kinds";
import type { Accessor, Expected } from "./types";

/** The object under `name`, or undefined when there is none. */
export async function find(accessor: Accessor, name: string): Promise<AnyObject | undefined> {
  try {
    return await accessor.get(name);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * The object under `name`, if it is the one to write: with `uid`, only that very object; another object
 * under the name is an error, not a target.
 */
export async function writeTarget(
  kind: KindName,
  accessor: Accessor,
  name: string,
  expected: Expected,
): Promise<AnyObject> {
  const current = await find(accessor, name);
  if (current === undefined) {
    throw new Error(
      `${kind} "${name}" no longer exists on the server (deleted outside Pulumi): run \`pulumi refresh\` ` +
        `to drop it from state, then \`pulumi up\` creates it again`,
    );
  }
  if (expected.uid !== undefined && current.metadata.uid !== expected.uid) {
    throw new Error(
      `${kind} "${name}" on the server is not the object this stack manages (uid ${current.metadata.uid}, ` +
        `not ${expected.uid}): it was deleted and created again outside Pulumi. Run \`pulumi refresh\` to drop ` +
        `the old one from state; the next \`pulumi up\` then asks for \`adopt: true\` to take over the new one`,
    );
  }
  return current;
}
