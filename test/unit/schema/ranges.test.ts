import { describe, expect, it } from "vitest";
import { validateSpec } from "../../../sdk/schema";
import {
  backendPortRange,
  integerFieldFix,
  integerProblem,
  revisionHistoryRange,
} from "../../../sdk/schema/rules/ranges";

describe("range rules' messages", () => {
  it("name what is wrong with a number that is not an integer", () => {
    expect(integerProblem(Number.POSITIVE_INFINITY)).toBe("is not a finite number");
    expect(integerProblem(Number.NEGATIVE_INFINITY)).toBe("is not a finite number");
    expect(integerProblem(Number.NaN)).toBe("is not a number");
    expect(integerProblem(1.5)).toBe("is not an integer");
    expect(integerProblem(8080)).toBeUndefined();
    expect(integerProblem(-3)).toBeUndefined();
  });

  it("say a port of Infinity is not finite, not that it is a fraction", () => {
    expect(backendPortRange.fix(Number.POSITIVE_INFINITY)).toBe(
      "Infinity is not a finite number; use an integer from 1 to 65535",
    );
    expect(backendPortRange.fix(80.5)).toBe("80.5 is not an integer; use an integer from 1 to 65535");
    expect(backendPortRange.fix(70000)).toBe("70000 is not a port number; use a port from 1 to 65535");
  });

  it("say a revision count of -Infinity or 2.5 is not a usable count", () => {
    expect(revisionHistoryRange.fix(Number.NEGATIVE_INFINITY)).toBe(
      "-Infinity is not a finite number; set a count of revisions to keep, 0 or more (default 10)",
    );
    expect(revisionHistoryRange.fix(2.5)).toMatch(/^2\.5 is not an integer; /);
    expect(revisionHistoryRange.fix(-1)).toBe(
      "-1 is negative; set a count of revisions to keep, 0 or more (default 10)",
    );
  });

  it("accept no non-finite value", () => {
    for (const value of [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN]) {
      expect(backendPortRange.accepts(value)).toBe(false);
    }
    expect(revisionHistoryRange.accepts(Number.NaN)).toBe(false);
  });

  it("tell what an integer field accepts from its JSON path", () => {
    expect(integerFieldFix("spec.template.spec.backend.port")).toBe("use an integer from 1 to 65535");
    expect(integerFieldFix("spec.backend.port")).toBe("use an integer from 1 to 65535");
    expect(integerFieldFix("spec.revisionHistoryLimit")).toMatch(/^set a count of revisions/);
    expect(integerFieldFix("spec.template.spec.backend.portal")).toBeUndefined();
    expect(integerFieldFix("spec.telemetry.accessLogs.json.x")).toBeUndefined();
  });
});

describe("a non-finite number reaching the schema directly (the provider's check, the pack)", () => {
  it("is named as not finite, not as a fraction", () => {
    const messages = validateSpec("Service", {
      source: { oci: { repo: "registry.example.dev/team/app", tag: "v1" } },
      template: {
        spec: { runtime: { compatibilityDate: "2026-01-01" }, backend: { protocol: "tcp", port: Infinity } },
      },
    }).map((violation) => violation.message);
    expect(messages.join("\n")).toContain("spec.template.spec.backend.port");
    expect(messages.join("\n")).toContain("not finite");
    expect(messages.join("\n")).not.toContain("fraction");
  });
});
