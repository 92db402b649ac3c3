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

/** The known name a typo most likely meant: same letters ignoring case, or at most two edits away. */
function closest(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = candidate.toLowerCase() === name.toLowerCase() ? 0 : editDistance(name, candidate);
    if (distance <= 2 && (best === undefined || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
