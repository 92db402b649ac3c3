import { describe, expect, test } from "vitest";
import {
  applyDefaults,
  type KindName,
  ProxySpecSchema,
  ServiceRevisionSpecSchema,
  ServiceSpecSchema,
  UNKNOWN,
} from "../../../sdk/schema";
import { DIGEST, gitService, ociService, revision } from "./examples";

const SCHEMAS = {
  Proxy: ProxySpecSchema,
  Service: ServiceSpecSchema,
  ServiceRevision: ServiceRevisionSpecSchema,
};
const minimalService = {
  source: { oci: { repo: "r.example.dev/a" } },
  template: { spec: { runtime: { compatibilityDate: "2026-01-01" } } },
};

const CASES: { name: string; kind: KindName; spec: unknown; expected: unknown }[] = [
  {
    name: "an empty Proxy gets provider cloud and 30s drain times",
    kind: "Proxy",
    spec: {},
    expected: { provider: "cloud", shutdown: { drainTimeout: "30s", minimumDrainTime: "30s" } },
  },
  {
    name: "a Proxy keeps its values and fills the missing drain time",
    kind: "Proxy",
    spec: { provider: "on-prem", shutdown: { drainTimeout: "10s" } },
    expected: { provider: "on-prem", shutdown: { drainTimeout: "10s", minimumDrainTime: "30s" } },
  },
  {
    name: "a minimal Service gets backend mode, tag latest, revisionHistoryLimit 10 and a 30s runtime timeout",
    kind: "Service",
    spec: minimalService,
    expected: {
      revisionHistoryLimit: 10,
      source: { oci: { repo: "r.example.dev/a", tag: "latest" } },
      template: {
        spec: {
          backend: { protocol: "http1" },
          runtime: { compatibilityDate: "2026-01-01", timeout: "30s" },
        },
      },
    },
  },
  {
    name: "a digest-only bundle gets no tag",
    kind: "ServiceRevision",
    spec: { bundle: { repo: "r.example.dev/a", digest: DIGEST }, filter: {} },
    expected: {
      bundle: { repo: "r.example.dev/a", digest: DIGEST },
      filter: { phase: "request", failureMode: "failClosed" },
    },
  },
  {
    name: "a git build gets rootDir . and productionBranch main, and the runtime its 30s timeout",
    kind: "Service",
    spec: {
      source: { git: { url: "u", build: { output: { repo: "r.example.dev/a", tag: "t" } }, triggers: {} } },
      template: { spec: { filter: {}, runtime: { compatibilityDate: "2025-01-01" } } },
    },
    expected: {
      revisionHistoryLimit: 10,
      source: {
        git: {
          url: "u",
          build: { output: { repo: "r.example.dev/a", tag: "t" }, rootDir: "." },
          triggers: { productionBranch: "main" },
        },
      },
      template: {
        spec: {
          filter: { phase: "request", failureMode: "failClosed" },
          runtime: { compatibilityDate: "2025-01-01", timeout: "30s" },
        },
      },
    },
  },
  {
    name: "a backend without protocol gets http1",
    kind: "ServiceRevision",
    spec: { bundle: { repo: "r.example.dev/a", digest: DIGEST }, backend: { port: 8080 } },
    expected: {
      bundle: { repo: "r.example.dev/a", digest: DIGEST },
      backend: { port: 8080, protocol: "http1" },
    },
  },
];

describe("applyDefaults", () => {
  test.each(CASES.map((item) => [item.name, item] as const))("%s", (_name, { kind, spec, expected }) => {
    expect(applyDefaults(kind, spec)).toEqual(expected);
  });

  test.each(CASES.map((item) => [item.name, item] as const))("is idempotent: %s", (_name, { kind, spec }) => {
    const once = applyDefaults(kind, spec);
    expect(applyDefaults(kind, once)).toEqual(once);
  });

  test.each(CASES.map((item) => [item.name, item] as const))(
    "agrees with zod's parse: %s",
    (_name, { kind, spec }) => {
      expect(SCHEMAS[kind].parse(spec)).toEqual(applyDefaults(kind, spec));
    },
  );

  test("returns a new object and leaves its input alone", () => {
    const input = structuredClone(gitService);
    const output = applyDefaults("Service", input);
    expect(input).toEqual(gitService);
    expect(output).not.toBe(input);
  });

  test("does not create optional objects that have required fields", () => {
    const output = applyDefaults("ServiceRevision", { bundle: { repo: "r.example.dev/a", digest: DIGEST } });
    expect(output).not.toHaveProperty("runtime");
    expect(output).not.toHaveProperty("egress");
  });

  test("does not create a Service's runtime either: a compatibility date has no default", () => {
    const spec = { ...minimalService, template: { spec: {} } };
    expect(applyDefaults("Service", spec).template.spec).not.toHaveProperty("runtime");
  });

  test("defaults around malformed parts and keeps them as they are", () => {
    const spec = {
      revisionHistoryLimit: "ten",
      source: "oci",
      template: { spec: { backend: 7, env: "x" } },
      extra: [1],
    };
    expect(applyDefaults("Service", spec)).toEqual(spec);
    expect(applyDefaults("Proxy", { shutdown: null, provider: 3 })).toEqual({ shutdown: null, provider: 3 });
    expect(applyDefaults("Proxy", { shutdown: [] })).toEqual({ provider: "cloud", shutdown: [] });
  });

  test("returns non-objects unchanged", () => {
    for (const spec of [undefined, null, 0, "spec", [], UNKNOWN])
      expect(applyDefaults("Proxy", spec)).toEqual(spec);
  });

  test("does not default inside or around unknown values", () => {
    const spec = {
      source: { oci: UNKNOWN },
      template: { spec: { backend: UNKNOWN, runtime: UNKNOWN } },
      revisionHistoryLimit: UNKNOWN,
    };
    expect(applyDefaults("Service", spec)).toEqual(spec);
    expect(applyDefaults("ServiceRevision", { bundle: UNKNOWN, filter: UNKNOWN })).toEqual({
      bundle: UNKNOWN,
      filter: UNKNOWN,
    });
  });

  test("keeps unknown fields (stripping them is a separate step)", () => {
    const output = applyDefaults("Service", { ...ociService, colour: "blue" });
    expect(output).toHaveProperty("colour", "blue");
  });

  test("leaves an already complete revision as it is", () => {
    expect(applyDefaults("ServiceRevision", revision)).toEqual(revision);
  });
});
