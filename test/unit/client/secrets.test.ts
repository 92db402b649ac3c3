import { describe, expect, it } from "vitest";
import { secretValuesOf, secretValuesOfJsonPatch, specWrittenBy } from "../../../sdk/client/secrets";

const serviceSpec = {
  source: {
    oci: {
      repo: "registry.example.dev/team/app",
      credentials: { username: "ci", password: "hunter2-long", accessToken: "<ACCESS_TOKEN>" },
    },
  },
  template: { spec: { runtime: { compatibilityDate: "2026-01-01" } } },
};

describe("secretValuesOf", () => {
  it("finds the secret values of a spec, not the other fields nor placeholders", () => {
    expect(secretValuesOf("Service", serviceSpec)).toEqual(["hunter2-long"]);
  });

  it("works on a partial spec, as in a merge patch", () => {
    const patch = { telemetry: { thirdPartySinks: { vendorBetaTraces: { keyData: "c2stbGl2ZQ==" } } } };
    expect(secretValuesOf("Proxy", patch)).toEqual(["c2stbGl2ZQ=="]);
  });
});

describe("secretValuesOfJsonPatch", () => {
  it("finds secrets written at a secret field or inside a value that holds one", () => {
    const values = secretValuesOfJsonPatch("Service", [
      { op: "replace", path: "/spec/source/oci/credentials/password", value: "new-password-1" },
      { op: "add", path: "/spec/source/oci/credentials", value: { refreshToken: "refresh-abc-123" } },
      { op: "replace", path: "/spec/template/spec/env/0/value", value: "not-a-secret" },
      { op: "remove", path: "/spec/revisionHistoryLimit" },
    ]);
    expect(values.sort()).toEqual(["new-password-1", "refresh-abc-123"]);
  });

  it("keeps the secrets of every operation, even when a later one writes over the same place", () => {
    const values = secretValuesOfJsonPatch("Proxy", [
      { op: "add", path: "/spec/telemetry/thirdPartySinks/vendorAlphaLogs", value: { key: "alpha-key-1" } },
      {
        op: "replace",
        path: "/spec/telemetry/thirdPartySinks/vendorAlphaLogs",
        value: { key: "alpha-key-2" },
      },
    ]);
    expect(values).toEqual(["alpha-key-1", "alpha-key-2"]);
  });

  it("ignores paths outside the spec and a __proto__ segment", () => {
    expect(
      secretValuesOfJsonPatch("Proxy", [
        { op: "add", path: "/metadata/labels/team", value: "edge" },
        { op: "add", path: "/__proto__/polluted", value: "yes" },
      ]),
    ).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("specWrittenBy", () => {
  it("lays out a value at its pointer, with arrays for indices and appends", () => {
    expect(specWrittenBy({ op: "add", path: "/spec/env/1/value", value: "x" })).toEqual({
      env: [undefined, { value: "x" }],
    });
    expect(specWrittenBy({ op: "add", path: "/spec/bindings/-", value: { name: "b" } })).toEqual({
      bindings: [{ name: "b" }],
    });
  });

  it("unescapes ~1 and ~0 in pointer segments", () => {
    expect(specWrittenBy({ op: "add", path: "/spec/labels/a~1b~0c", value: "v" })).toEqual({
      labels: { "a/b~c": "v" },
    });
  });

  it("writes nothing for an operation without a value", () => {
    expect(specWrittenBy({ op: "remove", path: "/spec/env" })).toBeUndefined();
  });
});
