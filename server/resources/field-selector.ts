import type { ApiObject } from "../../sdk/client/types";
import { badRequest } from "../../sdk/errors/server-errors";

/**
 * The fields a `fieldSelector` may name, with how to read each from an object. As for a Kubernetes custom
 * resource: the name, and the namespace (always "" here: every kind of this API is cluster-scoped).
 */
const FIELDS: Readonly<Record<string, (object: ApiObject) => string>> = {
  "metadata.name": (object) => object.metadata.name,
  "metadata.namespace": () => "",
};

export const SUPPORTED_FIELDS: readonly string[] = Object.keys(FIELDS);

/** One term of a field selector: `field=value` / `field==value` (equal) or `field!=value` (not equal). */
export interface FieldRequirement {
  field: string;
  equal: boolean;
  value: string;
}

export type FieldSelector = readonly FieldRequirement[];

/**
 * Parses the `fieldSelector` query parameter as Kubernetes does: terms separated by commas, all of which
 * must hold, each `field=value`, `field==value` or `field!=value`; a backslash escapes `,`, `=`, `!` and
 * `\` in a value. A field this API cannot select on is a 400 naming it and listing those it can.
 */
export function parseFieldSelector(text: string | undefined): FieldSelector {
  if (text === undefined || text.trim() === "") return [];
  return splitTerms(text).map((term) => parseTerm(term));
}

export function matchesFields(selector: FieldSelector, object: ApiObject): boolean {
  return selector.every(({ field, equal, value }) => {
    const read = FIELDS[field] as (object: ApiObject) => string;
    return (read(object) === value) === equal;
  });
}

/** The one name the selector allows, when it pins `metadata.name` (so a list can look it up directly). */
export function selectedName(selector: FieldSelector): string | undefined {
  return selector.find((term) => term.field === "metadata.name" && term.equal)?.value;
}

/** Splits at commas that are not escaped. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === ",") {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

function parseTerm(term: string): FieldRequirement {
  // The first unescaped operator splits the term: `!=`, then `==`, then `=`.
  for (let i = 0; i < term.length; i++) {
    const char = term[i];
    if (char === "\\") {
      i++;
      continue;
    }
    if (char === "!" && term[i + 1] === "=")
      return requirement(term, term.slice(0, i), false, term.slice(i + 2));
    if (char === "=") {
      const skip = term[i + 1] === "=" ? 2 : 1;
      return requirement(term, term.slice(0, i), true, term.slice(i + skip));
    }
  }
  throw badRequest(
    `fieldSelector: invalid selector: '${term}'; can't understand '${term}': use field=value, field==value or field!=value, such as metadata.name=web`,
  );
}

function requirement(term: string, rawField: string, equal: boolean, rawValue: string): FieldRequirement {
  const field = rawField.trim();
  if (!Object.hasOwn(FIELDS, field)) {
    throw badRequest(
      `fieldSelector: field label not supported: ${field === "" ? `'' in '${term}'` : field}; the supported fields are ${SUPPORTED_FIELDS.join(", ")}`,
    );
  }
  return { field, equal, value: unescape(rawValue.trim(), term) };
}

function unescape(value: string, term: string): string {
  let result = "";
  for (let i = 0; i < value.length; i++) {
    const char = value[i] as string;
    if (char !== "\\") {
      if (char === "=" || char === "!" || char === ",") {
        throw badRequest(
          `fieldSelector: invalid selector: '${term}': the value has an unescaped '${char}'; escape it with a backslash`,
        );
      }
      result += char;
      continue;
    }
    const next = value[i + 1];
    if (next === undefined || !"\\,=!".includes(next)) {
      throw badRequest(
        `fieldSelector: invalid selector: '${term}': '\\' may only escape '\\', ',', '=' or '!' in a value`,
      );
    }
    result += next;
    i++;
  }
  return result;
}
