import { describe, expect, test } from "vitest";
import { NativeProvider } from "../../../provider/native/native-provider";
import { isWireSecret, wireSecret } from "../../../provider/native/wire-secrets";
import { NATIVE_TYPE_TOKENS } from "../../../sdk/resources/type-tokens";
import { applyDefaults, UNKNOWN } from "../../../sdk/schema";

const urn = (kind: keyof typeof NATIVE_TYPE_TOKENS, name: string) =>
  `urn:pulumi:dev::app::${NATIVE_TYPE_TOKENS[kind]}::${name}`;
const digest = `sha256:${"a".repeat(64)}`;
const spec = (greeting: string) =>
  applyDefaults("Service", {
    source: { oci: { repo: "registry.example.dev/team/api", digest } },
    template: {
      spec: { runtime: { compatibilityDate: "2026-01-01" }, env: [{ name: "G", value: greeting }] },
    },
  }) as Record<string, unknown>;

const status = {
  observedGeneration: 2,
  latestRevision: "api-0000000001",
  liveRevision: "api-0000000001",
  conditions: [{ type: "EgressReady", status: "True" }],
};
const olds = {
  metadata: { name: "api", labels: { team: "a" }, uid: "u-1", resourceVersion: "7", generation: 2 },
  spec: spec("hello"),
  status,
  createToken: "t-1",
  latestRevision: "api-0000000001",
  liveRevision: "api-0000000001",
  egressReady: true,
};

describe("the native plugin's preview of an update (it supports provider previews)", () => {
  const provider = new NativeProvider();

  test("a label-only change keeps the revisions, status and the generation; the resourceVersion is left out", () => {
    const news = { metadata: { name: "api", labels: { team: "b" } }, spec: spec("hello") };
    const outputs = provider.previewUpdate(urn("Service", "api"), olds, news);
    expect(outputs).toMatchObject({
      metadata: { name: "api", labels: { team: "b" }, uid: "u-1", generation: 2 },
      status,
      createToken: "t-1",
      latestRevision: "api-0000000001",
      liveRevision: "api-0000000001",
      egressReady: true,
    });
    expect((outputs.metadata as Record<string, unknown>).resourceVersion).toBeUndefined();
  });

  test("a template change: the revisions and status are unknown (up mints and promotes one)", () => {
    const news = { metadata: { name: "api", labels: { team: "a" } }, spec: spec("bonjour") };
    const outputs = provider.previewUpdate(urn("Service", "api"), olds, news);
    expect(outputs).toMatchObject({
      latestRevision: UNKNOWN,
      liveRevision: UNKNOWN,
      status: UNKNOWN,
      egressReady: UNKNOWN,
      metadata: { name: "api", uid: "u-1" },
    });
    expect((outputs.metadata as Record<string, unknown>).generation).toBeUndefined();
  });

  test("a pinned live revision stays known while the latest is minted", () => {
    const news = {
      metadata: { name: "api", labels: { team: "a" } },
      spec: { ...spec("bonjour"), liveRevision: "api-0000000001" },
    };
    expect(provider.previewUpdate(urn("Service", "api"), olds, news)).toMatchObject({
      latestRevision: UNKNOWN,
      liveRevision: "api-0000000001",
    });
  });

  test("secrets stay secret: what arrived secret and the schema's secret fields", () => {
    const proxy = (key: unknown) => ({
      metadata: { name: "edge" },
      spec: { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key } } } },
    });
    const outputs = provider.previewUpdate(
      urn("Proxy", "edge"),
      { ...proxy("old-key"), status: {} },
      proxy(wireSecret("new-key")),
    );
    const sink = (outputs.spec as { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: unknown } } } })
      .telemetry.thirdPartySinks.vendorAlphaLogs;
    expect(isWireSecret(sink.key)).toBe(true);
    expect(outputs.status).toBe(UNKNOWN);
  });
});
