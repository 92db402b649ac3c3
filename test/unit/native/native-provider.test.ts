import { describe, expect, test } from "vitest";
import { detailedDiff, propertyPath } from "../../../provider/native/detailed-diff";
import { NativeProvider, parseUrn } from "../../../provider/native/native-provider";
import { conceal, isWireSecret, reveal, wireSecret } from "../../../provider/native/wire-secrets";
import { NATIVE_TYPE_TOKENS } from "../../../sdk/resources/type-tokens";
import { UNKNOWN } from "../../../sdk/schema";

const urn = (kind: keyof typeof NATIVE_TYPE_TOKENS, name: string) =>
  `urn:pulumi:dev::app::${NATIVE_TYPE_TOKENS[kind]}::${name}`;
const runtime = { compatibilityDate: "2026-01-01" };
const digest = `sha256:${"a".repeat(64)}`;

describe("the native provider's translation of the protocol", () => {
  test("a URN names the kind (native tokens only) and the Pulumi name", () => {
    expect(parseUrn(urn("ServiceRevision", "pinned::one"))).toEqual({
      kind: "ServiceRevision",
      logicalName: "pinned::one",
    });
    expect(parseUrn(`urn:pulumi:dev::app::my:component$${NATIVE_TYPE_TOKENS.Proxy}::edge`).kind).toBe(
      "Proxy",
    );
    expect(() => parseUrn("urn:pulumi:dev::app::aws:s3/bucket:Bucket::b")).toThrow(
      /no resource type aws:s3\/bucket:Bucket/,
    );
  });

  test("property paths read as Pulumi prints them", () => {
    expect(propertyPath(["spec", "template", "spec", "env", 0, "value"])).toBe(
      "spec.template.spec.env[0].value",
    );
    expect(propertyPath(["metadata", "labels", "app.example.dev/tier"])).toBe(
      'metadata.labels["app.example.dev/tier"]',
    );
  });

  test("secrets are unwrapped for the core and wrapped again where they were", () => {
    const wire = { spec: { sinks: [{ key: wireSecret("k1") }], other: "x" } };
    const { plain, secrets } = reveal(wire);
    expect(plain).toEqual({ spec: { sinks: [{ key: "k1" }], other: "x" } });
    expect(secrets).toEqual([["spec", "sinks", 0, "key"]]);
    expect(conceal(plain, secrets)).toEqual(wire);
    // Paths that lead nowhere are skipped, and a secret parent covers its children.
    expect(
      conceal({ a: 1 }, [
        ["b", "c"],
        ["a", "x"],
      ]),
    ).toEqual({ a: 1 });
    const whole = conceal({ a: { b: 1 } }, [["a"], ["a", "b"]]) as { a: unknown };
    expect(isWireSecret(whole.a)).toBe(true);
  });

  test("the detailed diff lists each changed leaf, replace where a replace reason covers it", () => {
    const olds = {
      metadata: { name: "api", labels: { team: "a" } },
      spec: { env: [{ name: "A", value: "1" }] },
    };
    const news = {
      metadata: { name: "api", labels: { team: "b", tier: "x" } },
      spec: { env: [{ name: "A", value: "2" }] },
    };
    expect(detailedDiff(olds, news, [])).toEqual({
      "metadata.labels.team": { kind: "update", replace: false },
      "metadata.labels.tier": { kind: "add", replace: false },
      "spec.env[0].value": { kind: "update", replace: false },
    });
    expect(detailedDiff(olds, { ...news, metadata: { name: "api2" } }, ["metadata.name"])).toMatchObject({
      "metadata.name": { kind: "update", replace: true },
      "metadata.labels": { kind: "delete", replace: false },
    });
  });

  test("checkConfig names each unusable setting with the provider's message and keeps the token secret", () => {
    const provider = new NativeProvider();
    const { inputs, failures } = provider.checkConfig({
      baseUrl: "ftp://api.example.dev",
      token: "t0ken-value",
      requestTimeoutSeconds: "-1",
      serverSideApply: "yes",
    });
    const reasons = failures.map(({ reason }) => reason);
    expect(reasons).toEqual([
      expect.stringMatching(/^exampledev:baseUrl \(or EXAMPLEDEV_BASE_URL\) must use http or https/),
      expect.stringMatching(/^exampledev:requestTimeoutSeconds must be a positive number/),
      'exampledev:serverSideApply must be true or false, not "yes"',
    ]);
    // No failure names a property: the engine would print its value next to it.
    expect(failures.every(({ property }) => property === "")).toBe(true);
    expect(
      provider
        .checkConfig({ baseUrl: "https://user:hunter2@api.example.dev" })
        .failures.map(({ reason }) => reason),
    ).toEqual([expect.not.stringContaining("hunter2")]);
    expect(JSON.stringify(failures)).not.toContain("t0ken-value");
    expect(isWireSecret(inputs.token)).toBe(true);
    expect(provider.checkConfig({ baseUrl: "http://127.0.0.1:8080", serverDryRun: true }).failures).toEqual(
      [],
    );
  });

  test("check applies defaults, reports schema errors by path, and marks the spec's secret fields", async () => {
    const provider = new NativeProvider();
    provider.configure({}, {});
    const checked = await provider.check(
      urn("Proxy", "edge"),
      {},
      {
        spec: {
          shutdown: { drainTimeout: "20s", minimumDrainTime: "40s" },
          telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: "plain-key" } } },
        },
      },
    );
    expect(checked.failures).toEqual([]);
    expect(checked.inputs.metadata).toMatchObject({ name: expect.stringMatching(/^edge-[0-9a-f]{5}$/) });
    const sink = (
      checked.inputs.spec as { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: unknown } } } }
    ).telemetry.thirdPartySinks.vendorAlphaLogs;
    expect(isWireSecret(sink.key)).toBe(true);

    const invalid = await provider.check(
      urn("Service", "api"),
      {},
      {
        metadata: { name: "api" },
        spec: { source: { oci: { repo: "r", digest: "nope" } }, template: { spec: { runtime } } },
      },
    );
    expect(invalid.failures.map(({ reason }) => reason).join("\n")).toMatch(/^spec\.source\.oci\.digest/m);
    // Unknown values during preview are never failures.
    expect((await provider.check(urn("Service", "api"), {}, { spec: UNKNOWN })).failures).toEqual([]);
  });

  test("diff: a ServiceRevision's spec change replaces it, deleting first because the name stays", async () => {
    const provider = new NativeProvider();
    provider.configure({}, {});
    const spec = { runtime, bundle: { repo: "registry.example.dev/app", digest } };
    const checked = await provider.check(
      urn("ServiceRevision", "rev"),
      {},
      { metadata: { name: "rev" }, spec },
    );
    const olds = { ...checked.inputs, metadata: { name: "rev", uid: "u1" }, status: {} };
    const news = (
      await provider.check(urn("ServiceRevision", "rev"), checked.inputs, {
        metadata: { name: "rev" },
        spec: { ...spec, runtime: { compatibilityDate: "2026-02-01" } },
      })
    ).inputs;
    const diff = await provider.diff("rev", urn("ServiceRevision", "rev"), olds, news);
    expect(diff).toMatchObject({ changes: true, replaces: ["spec"], deleteBeforeReplace: true });
    expect(diff.detailedDiff).toEqual({
      "spec.runtime.compatibilityDate": { kind: "update", replace: true },
    });
    expect(diff.replaceReasons[0]).toMatch(/^spec: /);

    const renamed = await provider.diff("rev", urn("ServiceRevision", "rev"), olds, {
      ...checked.inputs,
      metadata: { name: "rev-2" },
    });
    expect(renamed).toMatchObject({ replaces: ["metadata.name"], deleteBeforeReplace: false });
    expect(renamed.replaceReasons).toEqual([expect.stringMatching(/^metadata\.name: /)]);
    expect(await provider.diff("rev", urn("ServiceRevision", "rev"), olds, checked.inputs)).toMatchObject({
      changes: false,
      detailedDiff: {},
    });
  });
});
