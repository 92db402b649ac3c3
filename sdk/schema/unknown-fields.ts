import { closest } from "../shared/closest-name";
import type { KindName } from "./kinds";
import { quote, typeNameInMessages } from "./rules/helpers";
import { unknownField } from "./rules/structural";
import { specSchema } from "./specs";
import { formatPath, type PathSegment, type Violation, violation } from "./violation";
import { forEachObject, walk } from "./walk";

/** Keys of an object that its type does not define; the object's path starts at "spec". */
interface StrayKey {
  path: readonly PathSegment[];
  typeName: string;
  known: readonly string[];
}

function strayKeys(kind: KindName, spec: unknown): StrayKey[] {
  const found: StrayKey[] = [];
  forEachObject(
    specSchema(kind),
    spec,
    ({ value, path, fields, meta }) => {
      const known = Object.keys(fields);
      for (const key of Object.keys(value)) {
        if (!Object.hasOwn(fields, key))
          found.push({ path: [...path, key], typeName: meta?.typeName ?? "object", known });
      }
    },
    ["spec"],
  );
  return found;
}

/** JSON paths of fields the API does not define, e.g. "spec.template.spec.colour". */
export function findUnknownFields(kind: KindName, spec: unknown): string[] {
  return strayKeys(kind, spec).map(({ path }) => formatPath(path));
}

/** A copy of `spec` without the fields the API does not define. */
export function stripUnknownFields(kind: KindName, spec: unknown): unknown {
  return walk(specSchema(kind), spec, ({ value, fields }) =>
    Object.fromEntries(Object.entries(value).filter(([key]) => Object.hasOwn(fields, key))),
  );
}

export function unknownFieldViolations(kind: KindName, spec: unknown): Violation[] {
  return strayKeys(kind, spec).map(({ path, typeName, known }) => {
    const name = String(path[path.length - 1]);
    const guess = closest(name, known);
    const hint = guess === undefined ? `its fields are ${known.join(", ")}` : `did you mean ${quote(guess)}?`;
    return violation(
      unknownField,
      path,
      "FieldValueInvalid",
      `is not a field of ${typeNameInMessages(typeName)}; remove it or fix the spelling (${hint})`,
    );
  });
}
