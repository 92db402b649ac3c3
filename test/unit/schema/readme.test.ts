import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { RULES } from "../../../sdk/schema";

// The rule table lives in docs/policy-pack.md, where the README sends users looking for it. It is generated
// (`npm run generate`; test/unit/docs/ fails when it is stale); these tests read it back as a reader would.
const PAGE = readFileSync(join(__dirname, "../../../docs/policy-pack.md"), "utf8");

/** The rows of the docs' rule table, in the same shape as RULES. */
function readmeRules() {
  const start = PAGE.indexOf("## Validation rules");
  const section = PAGE.slice(start, PAGE.indexOf("\n## ", start + 1));
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [id = "", kinds = "", path = "", severity = ""] = line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim());
      return {
        id: id.replaceAll("`", ""),
        kinds: kinds.split(", "),
        path: path.replaceAll("`", "").split("<br>").join(" | "),
        severity,
      };
    });
}

test("the docs' rule table lists exactly the rules of RULES, in order", () => {
  expect(readmeRules().map((row) => row.id)).toEqual(RULES.map((rule) => rule.id));
});

test("the docs' rule table gives each rule's kinds, path and severity as RULES does", () => {
  expect(readmeRules()).toEqual(
    RULES.map(({ id, kinds, path, severity }) => ({ id, kinds: [...kinds], path, severity })),
  );
});

test("rule ids are unique and in kebab case", () => {
  const ids = RULES.map((rule) => rule.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
});
