// The native package's functions (provider/native/functions.ts), served by the installed plugin's Invoke: one
// stack (dynamic resources) creates a Service and a Proxy, another reads them with the generated Node SDK's
// getService/getServiceOutput, getServiceRevisionOutput, getProxyOutput and the list functions, on the local server.
import { execFileSync } from "node:child_process";
import path from "node:path";
import type { OutputMap } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPlugin } from "../../scripts/native/plugin-install";
import { type Backend, startBackend } from "../helpers/backends";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";

const owner = path.join(__dirname, "fixtures/lookups-owner");
const reader = path.join(__dirname, "fixtures/lookups-native");
const API_KEY = "api-key-native-lookups-0c7d22";

describe("the native package's lookup functions through the real Pulumi CLI, on the local server", () => {
  let backend: Backend;
  let registry: Registry;
  let a: TestStack;
  let b: TestStack;
  let ownerOutputs: OutputMap;
  const printed: string[] = [];
  const onOutput = (line: string) => printed.push(line);
  const value = (outputs: OutputMap, key: string) => outputs[key]?.value;

  beforeAll(async () => {
    [backend, registry] = await Promise.all([startBackend("local"), startRegistry()]);
    const digest = await pushArtifact(registry, { path: "team/shop", tag: "v1", content: "shop bundle" });
    [a, b] = await Promise.all([
      createTestStack(owner, { stackName: "native-owner" }),
      createTestStack(reader, { stackName: "native-reader" }),
    ]);
    await installPlugin(b.env);
    await a.stack.setAllConfig({
      ...backend.config,
      repo: { value: registry.repo("team/shop") },
      digest: { value: digest },
      apiKey: { value: API_KEY, secret: true },
    });
    await b.stack.setAllConfig({
      ...backend.config,
      serviceName: { value: "lookup-shop" },
      proxyName: { value: "lookup-edge" },
    });
    const result = await a.stack.up({ onOutput });
    expect(result.summary.result).toBe("succeeded");
    ownerOutputs = result.outputs;
  });

  afterAll(async () => {
    // No destroy of stack A: it asserts nothing, and the server and the stack's state go with the file.
    await b?.dispose();
    await a?.dispose();
    await Promise.all([backend?.close(), registry?.stop()]);
  });

  it("reads them at preview and up; the outputs equal the owner's; nothing secret leaks", async () => {
    const preview = await b.stack.preview({ onOutput });
    expect(preview.stdout).toContain(value(ownerOutputs, "latestRevision") as string);
    const result = await b.stack.up({ onOutput });
    expect(result.summary.result).toBe("succeeded");
    const o = (key: string) => value(result.outputs, key);
    expect(o("fnUid")).toBe(value(ownerOutputs, "serviceUid"));
    expect(o("fnLatestRevision")).toBe(value(ownerOutputs, "latestRevision"));
    expect(o("outLatestRevision")).toBe(value(ownerOutputs, "latestRevision"));
    expect(o("fnLiveRevision")).toBe(value(ownerOutputs, "liveRevision"));
    expect(o("fnEgressReady")).toBe(value(ownerOutputs, "egressReady"));
    const revision = await backend.client.serviceRevisions.get(
      value(ownerOutputs, "latestRevision") as string,
    );
    expect(o("outRevisionDigest")).toBe(revision.spec.bundle.digest);
    expect(o("outProxySpec")).toMatchObject({
      telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: "<API_KEY>" } } },
    });
    // The lists: a Service's revisions (one: the owner's single up), the Services and Proxies of a label.
    expect(o("fnRevisions")).toEqual([value(ownerOutputs, "latestRevision")]);
    expect(o("outServices")).toEqual(["lookup-shop"]);
    expect(o("fnProxies")).toEqual(["lookup-edge"]);
    const exported = execFileSync("pulumi", ["stack", "export", "--stack", b.stack.name], {
      cwd: b.dir,
      env: { ...process.env, ...b.env },
      encoding: "utf8",
    });
    expect(exported).not.toContain(API_KEY);
    expect(printed.join("\n")).not.toContain(API_KEY);
  });

  it("fails on a missing name, naming the kind, the name and the API", async () => {
    await b.stack.setConfig("missingService", { value: "no-such-service" });
    await expect(b.stack.preview({ onOutput })).rejects.toThrow(
      /no Service "no-such-service" at https?:\/\//,
    );
    await b.stack.removeConfig("missingService");
  });
});
