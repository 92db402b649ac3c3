import { describe, expect, test } from "vitest";
import { DOCS, markdown, regenerate, table } from "../../../scripts/lib/docs";
import { generatedDocs } from "../../../scripts/lib/generated";
import { SETTINGS } from "../../../sdk/client/settings";
import { RULES } from "../../../sdk/schema";

describe("generated documentation", () => {
  test.each(generatedDocs())("$file is what `npm run generate` writes", ({ file, current, generated }) => {
    expect(current, `${file} is out of date with the code it documents: run \`npm run generate\``).toBe(
      generated,
    );
  });

  test("the rule table has every rule's description, and marks the rules about changes", () => {
    const readme = generatedDocs().find(({ file }) => file === "docs/policy-pack.md")?.generated ?? "";
    for (const rule of RULES) {
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${rule.id}\` `));
      expect(row).toContain(markdown(rule.description));
      expect(row?.includes("**On update:**")).toBe(rule.change === true);
    }
  });

  test("the policy table lists the rules about changes as not in the pack", () => {
    const policies = generatedDocs().find(({ file }) => file === "policies/README.md")?.generated ?? "";
    for (const rule of RULES.filter((candidate) => candidate.change)) {
      expect(policies).toMatch(new RegExp(`^\\| \`${rule.id}\` +\\| not in the pack +\\|`, "m"));
    }
  });

  test("the configuration table has a row per setting", () => {
    const readme = generatedDocs().find(({ file }) => file === "docs/configuration.md")?.generated ?? "";
    for (const setting of Object.values(SETTINGS)) expect(readme).toContain(`| \`${setting.config}\``);
  });
});

describe("rendering", () => {
  test("quoted literals and field paths become code; table characters are escaped elsewhere", () => {
    expect(markdown('spec.bundle.digest is "sha256:<64 hex>" or <none> | other')).toBe(
      "`spec.bundle.digest` is `sha256:<64 hex>` or &lt;none&gt; \\| other",
    );
    expect(markdown('use "https://api.example.dev" such as http(s)')).toBe(
      "use `https://api.example.dev` such as http(s)",
    );
  });

  test("tables are padded to one width per column", () => {
    expect(table(["a", "bb"], [["xxxx", "y"]])).toBe(
      ["| a    | bb  |", "| ---- | --- |", "| xxxx | y   |"].join("\n"),
    );
  });

  test("a generated part is replaced between its markers, and a missing one says where to put them", () => {
    const section = { name: "demo", source: "a test", render: () => "new" };
    const text = "before\n<!-- generated:demo -->\nold\n<!-- /generated:demo -->\nafter\n";
    expect(regenerate("X.md", text, [section])).toBe(
      "before\n<!-- generated:demo by npm run generate from a test; edit that, not this -->\nnew\n<!-- /generated:demo -->\nafter\n",
    );
    expect(() => regenerate("X.md", "nothing here", [section])).toThrow(/X\.md: no generated part "demo"/);
  });

  test("every documented file has at least one generated part", () => {
    for (const sections of Object.values(DOCS)) expect(sections.length).toBeGreaterThan(0);
  });
});
