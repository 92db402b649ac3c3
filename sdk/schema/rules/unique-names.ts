import type { ObjectRule } from "../meta";
import type { RuleInfo } from "../violation";
import { type Finding, isSetString, objectRule, quote, SERVICE_KINDS } from "./helpers";

export const uniqueNamesInfo: RuleInfo = {
  id: "unique-names",
  kinds: SERVICE_KINDS,
  path: "**.bindings[*].name | **.env[*].name",
  severity: "error",
  description: "Names in env and in bindings are unique within their list: rename or remove the duplicate.",
};

/** The rule, checking the `name` of the elements of the given list fields of one object type. */
export function uniqueNames(...lists: string[]): ObjectRule {
  return objectRule(uniqueNamesInfo, ({ value }) => {
    const findings: Finding[] = [];
    for (const list of lists) {
      const items = value[list];
      if (!Array.isArray(items)) continue;
      const firstIndex = new Map<string, number>();
      items.forEach((item: unknown, index) => {
        const name = (item as { name?: unknown } | null)?.name;
        if (!isSetString(name)) return;
        const first = firstIndex.get(name);
        if (first === undefined) firstIndex.set(name, index);
        else
          findings.push({
            at: [list, index, "name"],
            reason: "FieldValueDuplicate",
            fix: `${quote(name)} is already used by ${list}[${first}]; names must be unique within ${list}, so rename or remove one`,
          });
      });
    }
    return findings;
  });
}
