// The native plugin's operations (provider/native/native-provider.ts) against the real server, as the engine
// calls them over the provider protocol: secrets arrive and leave wrapped, import reads by name only,
// custom timeouts bound the waits.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NativeProvider } from "../../provider/native/native-provider";
import { isWireSecret, reveal, wireSecret } from "../../provider/native/wire-secrets";
import { type Client, createClient } from "../../sdk/client";
import { NATIVE_TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { PLACEHOLDERS } from "../../sdk/schema";
import { startTestServer, type TestServer } from "../helpers/server";
import { digestService, proxyWithKeys, REPO, SECRETS } from "./fixtures";

const urn = (kind: keyof typeof NATIVE_TYPE_TOKENS, name: string) =>
  `urn:pulumi:dev::app::${NATIVE_TYPE_TOKENS[kind]}::${name}`;
type Props = Record<string, unknown>;
const at = (value: unknown, ...path: string[]) =>
  path.reduce<unknown>((node, key) => (node as Props | undefined)?.[key], value);

describe("the native plugin's operations against the server", () => {
  let server: TestServer;
  let api: Client;
  const provider = new NativeProvider();

  beforeAll(async () => {
    // A deleted Proxy terminates for this long: long enough for a 1 s timeout to run out.
    server = await startTestServer({ logLevel: "warn", proxyDeletionGraceMs: 600_000 });
    api = createClient({ baseUrl: server.url });
    // The stack config as Configure's variables; the provider's inputs (args) are empty for a default provider.
    provider.configure({ "exampledev:baseUrl": server.url }, {});
  });
  afterAll(async () => {
    await api?.close();
    await server?.close();
  });

  it("creates with secrets wrapped in and out, and a refresh keeps them without drift", async () => {
    const spec = proxyWithKeys();
    const news = { metadata: { name: "native-edge" }, spec };
    const { inputs } = await provider.check(urn("Proxy", "edge"), {}, news);
    const created = await provider.create(urn("Proxy", "edge"), inputs, 0);
    expect(created.id).toBe("native-edge");
    const sinks = ["spec", "telemetry", "thirdPartySinks"];
    expect(isWireSecret(at(created.properties, ...sinks, "vendorAlphaLogs", "key"))).toBe(true);
    expect(JSON.stringify(await api.proxies.get("native-edge"))).not.toContain(SECRETS.apiKey);

    const refreshed = await provider.read("native-edge", urn("Proxy", "edge"), created.properties);
    expect(reveal(at(refreshed.properties, ...sinks)).plain).toEqual(spec.telemetry.thirdPartySinks);
    expect(isWireSecret(at(refreshed.inputs, ...sinks, "vendorAlphaLogs", "key"))).toBe(true);
    const diff = await provider.diff("native-edge", urn("Proxy", "edge"), refreshed.properties, inputs);
    expect(diff).toMatchObject({ changes: false, detailedDiff: {} });
  });

  it("imports an object by name: the server's placeholders stand for secrets, and are no drift", async () => {
    await api.proxies.create({
      apiVersion: "core.example.dev/v1alpha2",
      kind: "Proxy",
      metadata: { name: "legacy-edge", labels: { owner: "ops" } },
      spec: proxyWithKeys(),
    } as never);
    const imported = await provider.read("legacy-edge", urn("Proxy", "legacy"), {});
    expect(imported.id).toBe("legacy-edge");
    expect(at(imported.properties, "metadata", "uid")).toEqual(expect.any(String));
    const inputs = imported.inputs;
    expect(Object.keys(inputs).sort()).toEqual(["metadata", "spec"]);
    expect(inputs.metadata).toEqual({ name: "legacy-edge", labels: { owner: "ops" } });
    const key = at(inputs, "spec", "telemetry", "thirdPartySinks", "vendorAlphaLogs", "key");
    expect(key).toEqual(wireSecret(PLACEHOLDERS.apiKey));

    // The engine checks the imported inputs, then diffs the program's (the same object) against them.
    const { inputs: checked } = await provider.check(urn("Proxy", "legacy"), {}, inputs);
    const diff = await provider.diff("legacy-edge", urn("Proxy", "legacy"), imported.properties, checked);
    expect(diff.changes).toBe(false);
    // A missing object is no import.
    expect((await provider.read("nothing-here", urn("Proxy", "gone"), {})).id).toBe("");
  });

  it("bounds a wait by the step's custom timeout (delete: a Proxy terminates for a grace period)", async () => {
    const { inputs } = await provider.check(
      urn("Proxy", "slow"),
      {},
      {
        metadata: { name: "slow-edge" },
        spec: { shutdown: { drainTimeout: "20s", minimumDrainTime: "40s" } },
      },
    );
    const created = await provider.create(urn("Proxy", "slow"), inputs, 30);
    const started = Date.now();
    const failure = await provider.delete("slow-edge", urn("Proxy", "slow"), created.properties, 1).then(
      () => undefined,
      (error: unknown) => error,
    );
    // Printed, not asserted: a timing.
    console.log(`[native provider] delete with a 1 s custom timeout failed after ${Date.now() - started} ms`);
    expect(String(failure)).toMatch(/timed out after 1s waiting for the object to be deleted/);
  });

  it("shows what a wait waits for as status lines on its resource, at most one a second, nothing after a timeout", async () => {
    const lines: { urn: string; line: string; at: number }[] = [];
    const logged = new NativeProvider({
      status: async (urn, text) => void lines.push({ urn, line: `status: ${text}`, at: Date.now() }),
      info: async (urn, text) => void lines.push({ urn, line: `info: ${text}`, at: Date.now() }),
    });
    logged.configure({ "exampledev:baseUrl": server.url }, {});
    const { inputs } = await logged.check(
      urn("Proxy", "draining"),
      {},
      { metadata: { name: "drain-edge" }, spec: {} },
    );
    const created = await logged.create(urn("Proxy", "draining"), inputs, 30);
    // A create of a Proxy waits for nothing: no line.
    expect(lines).toEqual([]);
    const failure = await logged
      .delete("drain-edge", urn("Proxy", "draining"), created.properties, 3)
      .catch((error: unknown) => error);
    expect(String(failure)).toMatch(/timed out after 3s/);
    // The drain (600 s) outlasts the timeout: the drain counting up, second by second, and no outcome.
    // (The deletion's time has whole seconds, so the count may start at 1.)
    const shown = lines.map((entry) => entry.line);
    expect(shown.length).toBeGreaterThanOrEqual(2);
    expect(shown.length).toBeLessThanOrEqual(4);
    const draining =
      /^status: draining for [0-4]s \(the controller removes core\.example\.dev\/drain once the drain is over\)$/;
    expect(shown.every((line) => draining.test(line))).toBe(true);
    expect(new Set(shown).size).toBe(shown.length);
    expect(lines.every((entry) => entry.urn === urn("Proxy", "draining"))).toBe(true);
    const gaps = lines.slice(1).map((entry, index) => entry.at - (lines[index] as { at: number }).at);
    expect(gaps.every((gap) => gap >= 900)).toBe(true);
  });

  it("shows the API's warnings of each step on its resource, each text once per step, steps kept apart", async () => {
    const shown: { urn: string; text: string }[] = [];
    const warned = new NativeProvider({
      warn: async (urn, text) => {
        shown.push({ urn, text });
      },
    });
    warned.configure({ "exampledev:baseUrl": server.url }, {});
    // Two Services created at once over the one client: one breaks two advisory rules, one breaks none.
    const lax = { ...digestService(REPO), revisionHistoryLimit: 1 };
    const laxSpec = {
      ...lax,
      template: { spec: { ...lax.template.spec, backend: { protocol: "http1", port: 8080 } } },
    };
    const checked = async (name: string, spec: object) =>
      (await warned.check(urn("Service", name), {}, { metadata: { name: `warned-${name}` }, spec })).inputs;
    const [laxInputs, tidyInputs] = await Promise.all([
      checked("lax", laxSpec),
      checked("tidy", digestService(REPO)),
    ]);
    const [created] = await Promise.all([
      warned.create(urn("Service", "lax"), laxInputs, 60),
      warned.create(urn("Service", "tidy"), tidyInputs, 60),
    ]);
    const texts = shown.map((entry) => entry.text);
    expect(shown.every((entry) => entry.urn === urn("Service", "lax"))).toBe(true);
    expect(texts).toHaveLength(2);
    expect(new Set(texts).size).toBe(2);
    expect(texts.some((text) => text.startsWith("spec.revisionHistoryLimit:"))).toBe(true);
    expect(texts.some((text) => text.includes("backend.port"))).toBe(true);

    // The next step (an update) is told again, once.
    shown.length = 0;
    const changed = { ...laxSpec, template: { spec: { ...laxSpec.template.spec, env: [] } } };
    const { inputs: news } = await warned.check(urn("Service", "lax"), laxInputs, {
      metadata: { name: "warned-lax" },
      spec: changed,
    });
    await warned.update("warned-lax", urn("Service", "lax"), created.properties, news, 60);
    expect(shown.map((entry) => entry.text).sort()).toEqual([...texts].sort());
  });
});
