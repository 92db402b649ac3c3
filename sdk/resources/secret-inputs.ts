import * as pulumi from "@pulumi/pulumi";
import type { KindName } from "../schema/kinds";
import type { SecretTree } from "../schema/secret-tree";
import SECRET_TREES from "./secret-trees.json";

/**
 * Where each kind's spec can hold secrets (a kind that holds none is absent): generated from the schema by
 * `npm run generate`, and test/unit/docs fails when it is stale, so that declaring resources loads no zod.
 */
const TREES: Readonly<Partial<Record<KindName, SecretTree>>> = SECRET_TREES;

/** Plain data the program wrote literally, as opposed to an Output or a promise of one. */
function isLiteral(value: unknown): value is Record<string, unknown> | unknown[] {
  if (Array.isArray(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Marks the spec's secret fields with `pulumi.secret()` so that Pulumi encrypts them in state. Where the
 * program passes an Output (or a promise) for a part of the spec that can hold secrets, that whole part is
 * marked, since what is inside cannot be seen before it resolves.
 */
export function markSecretInputs<T>(kind: KindName, spec: T): T {
  return mark(TREES[kind], spec) as T;
}

function mark(tree: SecretTree | undefined, value: unknown): unknown {
  if (value === undefined || value === null || tree === undefined) return value;
  if (!isLiteral(value)) return typeof value === "object" ? pulumi.secret(value) : value;
  const { secrets, fields, items } = tree;
  if (Array.isArray(value)) return value.map((item) => mark(items, item));
  const marked: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (secrets?.includes(key) && item !== undefined) marked[key] = pulumi.secret(item);
    else marked[key] = mark(fields ? fields[key] : items, item);
  }
  return marked;
}
