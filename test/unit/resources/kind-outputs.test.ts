// The outputs the kinds add beyond metadata, spec and status (what a program reads of revisions, builds and
// tags), and how the resource classes derive them.
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, test } from "vitest";
import { Proxy, Service, ServiceRevision } from "../../../sdk/resources";
import { serviceOutputs } from "../../../sdk/resources/kind-outputs";
import { TYPE_TOKENS } from "../../../sdk/resources/type-tokens";
import type { ServiceStatus } from "../../../sdk/schema/status";

const DIGEST = `sha256:${"c".repeat(64)}`;

const outputs = (status: Record<string, unknown>) => serviceOutputs(status as ServiceStatus);

describe("Service outputs", () => {
  test("lastBuild: phase, branch, commit and digest, without the message", () => {
    const lastBuild = {
      phase: "Succeeded",
      branch: "main",
      commit: "0123456789abcdef0123456789abcdef01234567",
      digest: DIGEST,
      startTime: "2026-11-23T08:00:00Z",
      completionTime: "2026-11-23T08:00:02Z",
      message: "pushed 127.0.0.1:5000/team/web",
    };
    expect(outputs({ lastBuild }).lastBuild).toEqual({
      phase: "Succeeded",
      branch: "main",
      commit: lastBuild.commit,
      digest: DIGEST,
    });
  });

  test("a failed build has no digest", () => {
    const lastBuild = { phase: "Failed", branch: "main", message: "git fetch failed" };
    expect(outputs({ lastBuild }).lastBuild).toEqual({ phase: "Failed", branch: "main" });
  });

  test("resolvedBundle as the status says it", () => {
    const resolvedBundle = { tag: "v1", digest: DIGEST, resolvedAt: "2026-11-23T08:00:00Z" };
    expect(outputs({ resolvedBundle }).resolvedBundle).toEqual(resolvedBundle);
  });

  test("neither output while the status has none", () => {
    expect(outputs({ latestRevision: "web-abc" })).toEqual({ latestRevision: "web-abc" });
  });
});

describe("the resource classes", () => {
  // What the engine receives; `status` is registered as an output (undefined), so it is not among them, and
  // the logical name and the seed of a generated name (the URN) go only with an object the program does not
  // name as a plain string.
  const NAMED = ["__provider", "metadata", "spec"];
  const UNNAMED = ["__provider", "logicalName", "metadata", "nameSeed", "spec"];
  test("derive the kind's outputs from status and spec instead of registering them as properties", async () => {
    const registered: Record<string, string[]> = {};
    const seeds: Record<string, string> = {};
    const status = {
      latestRevision: "web-abc",
      liveRevision: "web-abc",
      conditions: [{ type: "EgressReady", status: "False", reason: "GatewayNotFound", message: "…" }],
    };
    await pulumi.runtime.setMocks(
      {
        newResource: ({ type, inputs }) => {
          registered[type] = Object.keys(inputs).sort();
          if (inputs.nameSeed !== undefined) seeds[inputs.logicalName] = inputs.nameSeed;
          return { id: inputs.metadata?.name ?? "id", state: { ...inputs, status } };
        },
        call: (args) => args.inputs,
      },
      "project",
      "stack",
      false,
    );
    const service = new Service("web", { metadata: { name: "web" }, spec: {} as never });
    const revision = new ServiceRevision("rev", { spec: { bundle: { repo: "r", digest: DIGEST } } as never });
    const value = <T>(output: pulumi.Output<T>) => new Promise<T>((done) => output.apply(done));
    expect(await value(service.latestRevision)).toBe("web-abc");
    expect(await value(service.liveRevision)).toBe("web-abc");
    expect(await value(service.egressReady)).toBe(false);
    expect(await value(service.lastBuild)).toBeUndefined();
    expect(await value(revision.bundleDigest)).toBe(DIGEST);
    expect(registered[TYPE_TOKENS.Service]).toEqual(NAMED);
    expect(registered[TYPE_TOKENS.ServiceRevision]).toEqual(UNNAMED);
    const computed = new Proxy("computed", { metadata: { name: pulumi.output("computed") }, spec: {} });
    await value(computed.urn);
    expect(registered[TYPE_TOKENS.Proxy]).toEqual(UNNAMED);
    // The seed is the URN the engine gives the resource, under a parent too.
    expect(seeds.rev).toBe(await value(revision.urn));
    const parent = new pulumi.ComponentResource("test:index:Group", "group");
    const child = new Proxy("child", { spec: {} }, { parent });
    const childUrn = await value(child.urn);
    expect(childUrn).toContain("test:index:Group$");
    expect(seeds.child).toBe(childUrn);
  });
});
