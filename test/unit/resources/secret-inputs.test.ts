import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { markSecretInputs } from "../../../sdk/resources/secret-inputs";
import { type KindName, secretPaths } from "../../../sdk/schema";

const credentials = { accessToken: "t", password: "p", passwordData: "d", refreshToken: "r" };
const bundle = { repo: "registry.example.dev/team/app", digest: `sha256:${"5".repeat(64)}` };

/** A spec of each kind with every secret field its schema has, and fields beside them that are not secret. */
const SPECS: [KindName, Record<string, unknown>][] = [
  [
    "Proxy",
    {
      shutdown: { drainTimeout: "30s" },
      telemetry: {
        thirdPartySinks: {
          vendorAlphaLogs: { key: "a" },
          vendorAlphaTraces: { keyData: "b" },
          vendorBetaLogs: { key: "c", keyData: "d" },
          vendorBetaTraces: { key: "e" },
        },
      },
    },
  ],
  ["Service", { source: { oci: { ...bundle, credentials } }, template: { spec: { env: [{ name: "A" }] } } }],
  [
    "Service",
    { source: { git: { url: "file:///repo", build: { output: { repo: bundle.repo, credentials } } } } },
  ],
  ["ServiceRevision", { bundle: { ...bundle, credentials: { password: "p" } }, runtime: {} }],
];

/** The paths at which `value` holds an Output, and whether each is secret. */
async function outputsIn(value: unknown, at: (string | number)[] = []): Promise<[string, boolean][]> {
  if (pulumi.Output.isInstance(value)) return [[at.join("."), await pulumi.isSecret(value)]];
  if (typeof value !== "object" || value === null) return [];
  const entries = Array.isArray(value) ? value.map((item, i) => [i, item] as const) : Object.entries(value);
  return (await Promise.all(entries.map(([key, item]) => outputsIn(item, [...at, key])))).flat();
}

describe("markSecretInputs (the resource classes, without the zod schema)", () => {
  it.each(SPECS)(
    "marks exactly the %s spec's secret values the schema names, each as a secret",
    async (kind, spec) => {
      const marked = await outputsIn(markSecretInputs(kind, spec));
      const expected = secretPaths(kind, spec).map((p) => [p.join("."), true]);
      expect(expected.length).toBeGreaterThan(0);
      expect(marked.sort()).toEqual(expected.sort());
    },
  );

  it("marks an Output whole where it can hold secrets, and leaves one alone where it cannot", async () => {
    const spec = {
      source: { oci: pulumi.output({ ...bundle, credentials }) },
      template: pulumi.output({ spec: { env: [] } }),
    };
    expect((await outputsIn(markSecretInputs("Service", spec))).sort()).toEqual([
      ["source.oci", true],
      ["template", false],
    ]);
  });

  it("leaves a spec without secret fields as it is", async () => {
    expect(await outputsIn(markSecretInputs("Service", { source: { oci: bundle } }))).toEqual([]);
  });
});
