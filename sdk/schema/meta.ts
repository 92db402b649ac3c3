import { z } from "zod";
import type { PathSegment, RuleInfo, Violation } from "./violation";

/** An object of the spec as the walker meets it, with its concrete path from the object root. */
export interface ObjectNode {
  value: Record<string, unknown>;
  path: readonly PathSegment[];
}

/** A cross-field rule: looks at one object of its type and reports violations. */
export interface ObjectRule {
  info: RuleInfo;
  check(node: ObjectNode): Violation[];
}

/** What the walker needs to know about an object type beyond its fields. */
export interface TypeMeta {
  /** The API-SPEC type name, used in messages ("is not a field of BundleRef"). */
  typeName: string;
  /** Defaults that depend on other fields (e.g. backend mode); must be idempotent and tolerate bad input. */
  fill?: (value: Record<string, unknown>) => Record<string, unknown>;
  /** Cross-field rules checked on every object of this type, wherever it appears. */
  rules?: readonly ObjectRule[];
}

export const typeMeta = z.registry<TypeMeta>();

/** A strict object type (unknown keys are errors) registered with its name, conditional defaults and rules. */
export function objectType<Shape extends z.core.$ZodLooseShape>(
  typeName: string,
  shape: Shape,
  extras: Omit<TypeMeta, "typeName"> = {},
) {
  const base = z.strictObject(shape);
  type Output = z.output<typeof base>;
  const { fill } = extras;
  // The same fill runs in zod's parse (overwrite) and in applyDefaults (walker), so both agree.
  const schema = fill ? base.overwrite((value) => fill(value) as Output) : base;
  return schema.register(typeMeta, { typeName, ...extras });
}
