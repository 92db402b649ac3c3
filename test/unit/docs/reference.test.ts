import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import {
  fieldRules,
  pathMatches,
  REFERENCE_FILE,
  replacingRules,
  typeText,
} from "../../../scripts/lib/reference";
import { schemaFields } from "../../../scripts/lib/schema-fields";
import { KIND_NAMES, RULES, SECRET_FIELDS } from "../../../sdk/schema";
import { BundleRefSchema, EnvVarSchema } from "../../../sdk/schema/common";
import { fieldDefault } from "../../../sdk/schema/defaults";

// docs/reference.md is generated (test/unit/docs/docs.test.ts holds it to what `npm run generate` writes);
// these tests hold what it says to the schema, and read the committed page as a reader would.

const PAGE = readFileSync(path.resolve(__dirname, "../../..", REFERENCE_FILE), "utf8");
const FIELDS = schemaFields();

/** The cells of the row of `path` in the section of `kind`. */
function row(kind: string, fieldPath: string): string[] {
  const start = PAGE.indexOf(`\n## ${kind}\n`);
  const end = PAGE.indexOf("\n## ", start + 1);
  const line = PAGE.slice(start, end === -1 ? undefined : end)
    .split("\n")
    .find((candidate) => candidate.startsWith(`| \`${fieldPath}\` `));
  if (line === undefined) throw new Error(`no row for ${kind} ${fieldPath}`);
  return line.split(" | ").map((cell) => cell.replace(/^\|/, "").replace(/\|$/, "").trim());
}

describe("rule paths", () => {
  test.each([
    ["**.backend.port", "spec.template.spec.backend.port", true],
    ["**.backend.port", "spec.backend.port", true],
    ["**.backend.port", "spec.backend.portal", false],
    ["**", "spec.anything[*].at.all", true],
    ["**.bindings[*].type", "spec.template.spec.bindings[*].type", true],
    [
      "spec.telemetry.thirdPartySinks.*.keyData",
      "spec.telemetry.thirdPartySinks.vendorBetaLogs.keyData",
      true,
    ],
    ["spec.telemetry.thirdPartySinks.*.keyData", "spec.telemetry.thirdPartySinks.keyData", false],
    ["spec.source", "spec.source.oci", false],
  ])("%s matches %s: %s", (pattern, fieldPath, expected) => {
    expect(pathMatches(pattern, fieldPath)).toBe(expected);
  });
});

describe("the resource reference", () => {
  test("has a row for every field of every kind, once", () => {
    for (const kind of KIND_NAMES) {
      const paths = FIELDS.filter((field) => field.kind === kind).map((field) => field.path);
      expect(new Set(paths).size).toBe(paths.length);
      for (const fieldPath of paths) expect(row(kind, fieldPath)[0]).toBe(`\`${fieldPath}\``);
    }
  });

  test("every rule that names fields is listed on a field of each kind it applies to", () => {
    for (const rule of RULES.filter((candidate) => !candidate.change && candidate.path !== "**")) {
      for (const kind of rule.kinds) {
        const listed = FIELDS.filter((field) => field.kind === kind && fieldRules(field).includes(rule.id));
        expect(listed.length, `${rule.id} on ${kind}`).toBeGreaterThan(0);
      }
    }
  });

  test("the defaults are the schema's", () => {
    for (const field of FIELDS.filter((candidate) => candidate.hasDefault && !candidate.path.includes("*"))) {
      const value = fieldDefault(field.kind, field.path);
      const shown = typeof value === "string" ? value : JSON.stringify(value);
      expect(row(field.kind, field.path)[2]).toBe(`\`${shown}\``);
    }
    expect(row("Service", "spec.source.oci.tag")[2]).toBe('`"latest"` with neither `tag` nor `digest`');
    expect(row("Service", "spec.template.spec.runtime.compatibilityDate")[2]).toBe("required");
  });

  test("every secret field is marked secret wherever it appears, and no other", () => {
    for (const field of FIELDS) {
      const secret = SECRET_FIELDS.some(
        ({ type, field: name }) => type === field.typeName && name === field.field,
      );
      expect(row(field.kind, field.path)[4] !== "", `${field.kind} ${field.path}`).toBe(secret);
    }
    expect(row("Service", "spec.source.oci.credentials.password")[4]).toBe("yes, write-only");
    expect(row("Proxy", "spec.telemetry.thirdPartySinks.vendorAlphaLogs.key")[4]).toBe(
      "yes, read as `<API_KEY>`",
    );
  });

  test("a ServiceRevision's every field replaces it, a Service's mode fields only, a Proxy's none", () => {
    const replacing = (kind: string) =>
      FIELDS.filter((field) => field.kind === kind && replacingRules(field).length > 0).map(
        (field) => field.path,
      );
    expect(replacing("Proxy")).toEqual([]);
    expect(replacing("Service")).toEqual(["spec.template.spec.backend", "spec.template.spec.filter"]);
    expect(replacing("ServiceRevision")).toEqual(
      FIELDS.filter((field) => field.kind === "ServiceRevision").map((field) => field.path),
    );
    expect(row("ServiceRevision", "spec.bundle.digest")[5]).toBe("replaces (`revision-spec-immutable`)");
    expect(row("Service", "spec.template.spec.backend.port")[5]).toBe("in place");
  });

  test("types read as words", () => {
    expect(typeText(BundleRefSchema)).toBe("BundleRef");
    expect(typeText(EnvVarSchema.shape.name)).toBe("string");
    expect(row("Service", "spec.template.spec.env")[1]).toBe("list of EnvVar, merged by `name`");
    expect(row("Service", "spec.revisionHistoryLimit")[1]).toBe("integer (int32)");
    expect(row("Service", "spec.template.spec.backend.protocol")[1]).toBe(
      "one of `http1`, `http2`, `tcp`, `udp`",
    );
    expect(row("Proxy", "spec.telemetry.accessLogs.json")[1]).toBe("free-form map");
  });
});
