import { describe, expect, it } from "vitest";
import { specViolations } from "../../policies/spec-violations";
import { KIND_NAMES, validateSpec } from "../../sdk/schema";
import { specWith, VALID_SPECS } from "./fixtures";
import { FAILING_CASES } from "./rule-cases";

const SPECS = [
  ...KIND_NAMES.map((kind) => ({ kind, spec: VALID_SPECS[kind] })),
  ...Object.values(FAILING_CASES).map(({ kind, spec }) => ({ kind, spec })),
];

describe("the pack's one validation per resource", () => {
  it("answers for a copy of a spec what validateSpec answers, from memory or not", () => {
    for (let round = 0; round < 2; round++)
      for (const { kind, spec } of SPECS)
        expect(specViolations(kind, structuredClone(spec))).toEqual(validateSpec(kind, spec));
  });

  it("tells apart specs that are the same JSON but not the same to validateSpec", () => {
    // Set after the merge patch, to which null means "remove".
    const withPort = (port: number | null) => {
      const spec = specWith("Service", {});
      Object.assign((spec.template as { spec: { backend: object } }).spec.backend, { port });
      return spec;
    };
    const pairs = [
      { kind: "Proxy", first: VALID_SPECS.Proxy, second: { ...VALID_SPECS.Proxy, bogus: undefined } },
      { kind: "Service", first: withPort(null), second: withPort(Number.NaN) },
    ] as const;
    for (const { kind, first, second } of pairs) {
      expect(JSON.stringify(first)).toBe(JSON.stringify(second));
      expect(validateSpec(kind, first)).not.toEqual(validateSpec(kind, second));
      expect(specViolations(kind, first)).toEqual(validateSpec(kind, first));
      expect(specViolations(kind, second)).toEqual(validateSpec(kind, second));
    }
  });

  it("validates what it cannot spell out (a class instance) afresh each time", () => {
    const spec = { ...specWith("Proxy", {}), shutdown: new Map() };
    expect(specViolations("Proxy", spec)).toEqual(validateSpec("Proxy", spec));
    expect(specViolations("Proxy", spec)).not.toBe(specViolations("Proxy", spec));
  });
});
