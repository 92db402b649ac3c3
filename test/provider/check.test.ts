import { describe, expect, it } from "vitest";
import type { ObjectInputs } from "../../provider/state";
import { applyDefaults, type KindName, nameProblem, UNKNOWN, validateSpec } from "../../sdk/schema";
import { checked, declared, providerOf } from "../helpers/provider";
import {
  DIGEST,
  digestService,
  gitService,
  REPO,
  RUNTIME,
  revisionWithCredentials,
  taggedService,
} from "./fixtures";

const MINIMAL_SPECS: Record<KindName, Record<string, unknown>> = {
  Proxy: { shutdown: { drainTimeout: "20s", minimumDrainTime: "40s" } },
  Service: digestService(REPO),
  ServiceRevision: { runtime: RUNTIME, bundle: { repo: REPO, digest: DIGEST } },
};

const check = (kind: KindName, news: ReturnType<typeof declared>, olds = {}) =>
  providerOf(kind).check(olds, news);

describe("check", () => {
  describe.each(Object.keys(MINIMAL_SPECS) as KindName[])("of a %s", (kind) => {
    it("applies the schema's defaults, so the defaulted state it leads to diffs as unchanged", async () => {
      const spec = MINIMAL_SPECS[kind];
      const inputs = await checked(kind, declared("thing", spec, { metadata: { name: "thing" } }));
      expect(inputs.spec).toEqual(applyDefaults(kind, spec));
      expect(inputs.spec).not.toEqual(spec);

      // State after create holds the spec as the server stores it: every default written out.
      const state = { ...inputs, spec: structuredClone(applyDefaults(kind, spec)), status: {} };
      const again = await checked(kind, declared("thing", spec, { metadata: { name: "thing" } }), inputs);
      expect(await providerOf(kind).diff("thing", state, again)).toMatchObject({
        changes: false,
        replaces: [],
      });
    });
  });

  it("reports one failure per schema violation, each with its field path in the reason", async () => {
    const spec = {
      provider: 3,
      shutdown: { drainTimeout: "40s", minimumDrainTime: "10s" },
      telemetry: { tracing: {}, colour: "blue" },
    };
    const result = await check("Proxy", declared("edge", spec));
    const paths = [
      "spec.provider",
      "spec.shutdown.minimumDrainTime",
      "spec.telemetry.tracing.enabled",
      "spec.telemetry.colour",
    ];
    expect(result.failures).toHaveLength(paths.length);
    for (const path of paths) {
      expect(result.failures?.filter((failure) => failure.reason.includes(path))).toHaveLength(1);
    }
  });

  it("states each failure's field path once, not twice", async () => {
    const spec = { shutdown: { drainTimeout: "40s", minimumDrainTime: "10s" } };
    const [violation] = validateSpec("Proxy", spec);
    const [failure] = (await check("Proxy", declared("edge", spec))).failures ?? [];
    expect(failure?.reason.startsWith(`${violation?.path}:`)).toBe(true);
    expect(failure?.reason.split(violation?.path ?? "").length).toBe(2);
  });

  it("reports a missing spec as a failure, with no spec in the inputs it returns", async () => {
    const { spec: _none, ...withoutSpec } = declared("svc", {});
    const result = await providerOf("Service").check({}, withoutSpec as ObjectInputs);
    expect(result.failures).toEqual([{ property: "", reason: expect.stringMatching(/^spec: is required/) }]);
    expect(result.inputs).not.toHaveProperty("spec");
  });

  it("does not fail on the schema's warnings (a tag instead of a pinned digest)", async () => {
    const spec = taggedService(REPO, "v1");
    expect(validateSpec("Service", spec).map((violation) => violation.severity)).toContain("warning");
    expect((await check("Service", declared("api", spec))).failures).toEqual([]);
  });

  it("fails a file:// git URL naming a host at preview, in the words the server refuses it with", async () => {
    const spec = gitService();
    spec.source.git.url = "file://build-host/srv/app.git";
    const { failures } = await check("Service", declared("api", spec));
    expect(failures).toEqual([
      {
        property: "",
        reason: expect.stringMatching(
          /^spec\.source\.git\.url: "file:\/\/build-host\/srv\/app\.git" names the host "build-host", .* write file:\/\/\/srv\/app\.git or file:\/\/localhost\/srv\/app\.git/,
        ),
      },
    ]);
  });

  describe("with values unknown during preview", () => {
    it("does not fail on an unknown field, even one a rule or a requirement depends on", async () => {
      const proxy = { shutdown: { drainTimeout: UNKNOWN, minimumDrainTime: "10s" } };
      expect((await check("Proxy", declared("edge", proxy))).failures).toEqual([]);

      const service = { source: UNKNOWN, template: { spec: { runtime: { compatibilityDate: UNKNOWN } } } };
      const result = await check("Service", declared("api", service));
      expect(result.failures).toEqual([]);
      expect(result.inputs.spec.source).toBe(UNKNOWN);
    });

    it("does not fail on a wholly unknown spec, and passes it on unknown", async () => {
      const result = await check("Service", declared("api", UNKNOWN, { metadata: { name: "api" } }));
      expect(result.failures ?? []).toEqual([]);
      expect(result.inputs.spec).toBe(UNKNOWN);
      expect(result.inputs.metadata).toEqual({ name: "api" });
    });

    it("keeps an unknown name unknown instead of generating one", async () => {
      const result = await check("Proxy", declared("edge", {}, { metadata: { name: UNKNOWN } }));
      expect(result.failures).toEqual([]);
      expect(result.inputs.metadata.name).toBe(UNKNOWN);
    });

    it("keeps wholly unknown metadata unknown, rather than spreading the sentinel into it", async () => {
      const result = await check("Proxy", { ...declared("edge", {}), metadata: UNKNOWN } as never);
      expect(result.failures).toEqual([]);
      expect(result.inputs.metadata).toBe(UNKNOWN);
    });
  });

  describe("naming", () => {
    it("names an unnamed object after its logical name plus a suffix from its URN, as a DNS-1123 name", async () => {
      const inputs = await checked("Service", declared("My_API", digestService(REPO)));
      expect(inputs.metadata.name).toMatch(/^my-api-[0-9a-f]{5}$/);
      expect(nameProblem(inputs.metadata.name)).toBeUndefined();
    });

    it("keeps the generated name on later checks while the program sets none, whatever else changes", async () => {
      const first = await checked("Proxy", declared("edge", {}));
      const second = await checked(
        "Proxy",
        declared("edge", { provider: "aws" }, { metadata: { labels: { a: "b" } } }),
        first,
      );
      const third = await checked("Proxy", declared("edge", {}), second);
      expect(second.metadata.name).toBe(first.metadata.name);
      expect(third.metadata.name).toBe(first.metadata.name);
      expect(second.metadata.labels).toEqual({ a: "b" });
    });

    it("gives one resource the same name in every check, and copies of a stack (other URNs) other names", async () => {
      const seeded = (stack: string) => ({
        ...declared("edge", {}),
        nameSeed: `urn:pulumi:${stack}::shop::pulumi-nodejs:dynamic/exampledev:Proxy::edge`,
      });
      const names = new Set<string>();
      for (const stack of ["dev", "dev", "prod", "staging"]) {
        names.add((await checked("Proxy", seeded(stack))).metadata.name);
      }
      expect(names.size).toBe(3);
      // The seed is not kept: check consumes it.
      expect(await checked("Proxy", seeded("dev"))).not.toHaveProperty("nameSeed");
    });

    it("creates an unnamed object's replacement first, under the next name its check gives", async () => {
      const spec = revisionWithCredentials(REPO);
      const resource = (revision: typeof spec) => ({
        ...declared("pinned", revision),
        nameSeed: "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/exampledev:ServiceRevision::pinned",
      });
      const first = await checked("ServiceRevision", resource(spec));
      const state = { ...first, status: {} } as Parameters<ReturnType<typeof providerOf>["diff"]>[1];
      const changedSpec = { ...spec, runtime: { ...spec.runtime, timeout: "45s" } };
      const changed = await checked("ServiceRevision", resource(changedSpec), first);
      expect(changed.metadata.name).toBe(first.metadata.name);
      const diff = await providerOf("ServiceRevision").diff(first.metadata.name, state, changed);
      expect(diff).toMatchObject({ changes: true, replaces: ["spec"], deleteBeforeReplace: false });
      // The engine checks the replacement again without olds: the old object still holds its name.
      const replacement = await checked("ServiceRevision", resource(changedSpec));
      expect(replacement.metadata.name).toMatch(/^pinned-[0-9a-f]{5}$/);
      expect(replacement.metadata.name).not.toBe(first.metadata.name);
      expect((await checked("ServiceRevision", resource(changedSpec))).metadata.name).toBe(
        replacement.metadata.name,
      );
    });

    it("uses the program's name as given, and generates one again once the program drops it", async () => {
      const named = await checked("Proxy", declared("edge", {}, { metadata: { name: "chosen" } }));
      expect(named.metadata.name).toBe("chosen");
      const unnamed = await checked("Proxy", declared("edge", {}), named);
      expect(unnamed.metadata.name).toMatch(/^edge-[0-9a-f]{5}$/);
    });

    it("leaves room in a generated Service name for the controller's revision suffix (-<10 hex>)", async () => {
      const inputs = await checked("Service", declared("s".repeat(300), digestService(REPO)));
      expect(nameProblem(`${inputs.metadata.name}-0123456789`)).toBeUndefined();
    });

    it.each([
      ["Edge Proxy #1", "Edge Proxy #1"],
      ["web..api", "web..api"],
      ["team.-api", "team.-api"],
      ["api-.v2", "api-.v2"],
      ["___", "___"],
      ["Ünïcödé", "Ünïcödé"],
      ["of 300 characters", "x".repeat(300)],
    ])("turns the logical name %s into a name the API accepts", async (_case, logicalName) => {
      const inputs = await checked("ServiceRevision", declared(logicalName, revisionWithCredentials(REPO)));
      expect(nameProblem(inputs.metadata.name)).toBeUndefined();
    });
  });
});
