import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { RULES, validateSpec } from "../../../sdk/schema";
import { fieldDefault } from "../../../sdk/schema/defaults";
import { integerFieldFix } from "../../../sdk/schema/rules/ranges";
import { cloudProxy, ociService, selfManagedProxy, withValue } from "../schema/examples";

// What users read about a rule: its description (the README tables, the policy pack) and its messages.

describe("rule descriptions", () => {
  test.each(RULES.map((rule) => [rule.id, rule.description]))(
    "%s says what must hold, then how to fix it",
    (_id, description) => {
      expect(description).toMatch(/^\S.*: .+\.$/s);
    },
  );
});

describe("defaults in messages come from the schema", () => {
  test("fieldDefault reads what the schema declares, and refuses a field without a default", () => {
    expect(fieldDefault("Proxy", "spec.shutdown.minimumDrainTime")).toBe("30s");
    expect(fieldDefault("Service", "spec.revisionHistoryLimit")).toBe(10);
    expect(fieldDefault("Proxy", "spec.provider")).toBe("cloud");
    expect(() => fieldDefault("Service", "spec.liveRevision")).toThrow(/not a field with a default/);
    expect(() => fieldDefault("Proxy", "spec.nothing.here")).toThrow(/not a field with a default/);
  });

  test("drain-minimum names the schema's drain defaults", () => {
    const minimum = fieldDefault("Proxy", "spec.shutdown.minimumDrainTime");
    const [found] = validateSpec("Proxy", { shutdown: { drainTimeout: "90s", minimumDrainTime: "10s" } });
    expect(found?.message).toContain(`(it defaults to "${minimum}" when unset)`);
    expect(RULES.find((rule) => rule.id === "drain-minimum")?.description).toContain(
      `(both default to "${minimum}")`,
    );
  });

  test("the revisionHistoryLimit rules name the schema's default", () => {
    const limit = fieldDefault("Service", "spec.revisionHistoryLimit");
    for (const value of [-1, 1]) {
      const [found] = validateSpec("Service", withValue(ociService, ["revisionHistoryLimit"], value));
      expect(found?.message).toContain(`(default ${limit})`);
    }
    expect(integerFieldFix("spec.revisionHistoryLimit")).toContain(`(default ${limit})`);
    for (const id of ["revision-history-range", "revision-history-minimum"])
      expect(RULES.find((rule) => rule.id === id)?.description).toContain(`(default ${limit})`);
  });

  test("no rule restates a default by hand", () => {
    const dir = join(__dirname, "../../../sdk/schema/rules");
    const restated = readdirSync(dir).flatMap((file) =>
      readFileSync(join(dir, file), "utf8")
        .split("\n")
        .filter((line) => /defaults? (to )?\\?"?\d/.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(restated).toEqual([]);
  });
});

describe("the spec's misspelt type name ProxyTelementry", () => {
  const misspelt = /telementry/i;

  test("appears in no rule description", () => {
    expect(RULES.filter((rule) => misspelt.test(rule.description)).map((rule) => rule.id)).toEqual([]);
  });

  test("appears in no message about the telemetry object", () => {
    const specs = [
      withValue(cloudProxy, ["telemetry", "colour"], "blue"),
      withValue(cloudProxy, ["telemetry", "otelCollectorConfig"], { name: "collector" }),
      withValue(selfManagedProxy, ["telemetry", "thirdPartySinks"], {}),
      withValue(cloudProxy, ["telemetry"], "on"),
    ];
    const messages = specs.flatMap((spec) => validateSpec("Proxy", spec).map((found) => found.message));
    expect(messages.length).toBeGreaterThanOrEqual(specs.length);
    expect(messages.filter((message) => misspelt.test(message))).toEqual([]);
    expect(messages[0]).toContain("is not a field of ProxyTelemetry");
  });
});

describe("a Service without a compatibility date", () => {
  const field = "spec.template.spec.runtime.compatibilityDate";

  test.each([
    ["an empty template.spec", withValue(ociService, ["template", "spec"], {})],
    [
      "a runtime without it",
      withValue(ociService, ["template", "spec", "runtime", "compatibilityDate"], undefined),
    ],
  ])("%s: one violation at the field, whose message says what date to set", (_name, spec) => {
    const found = validateSpec("Service", spec).filter((item) => item.rule === "service-required-fields");
    expect(found).toEqual([
      {
        rule: "service-required-fields",
        path: field,
        severity: "error",
        reason: "FieldValueRequired",
        message: `${field}: is required; set it to a date such as "2026-01-01" (the worker runtime's compatibility date)`,
      },
    ]);
    expect(
      validateSpec("Service", spec).filter((item) => item.path.startsWith("spec.template.spec.runtime")),
    ).toEqual(found);
  });
});

test("a missing spec or template is still reported where it is missing, not at the date", () => {
  expect(validateSpec("Service", undefined).map((found) => found.path)).toEqual(["spec"]);
  const noTemplate = withValue(ociService, ["template"], undefined);
  expect(validateSpec("Service", noTemplate).map((found) => found.path)).toEqual(["spec.template"]);
});
