// Lookups (docs/lookups.md): one stack reads the objects another stack manages, on one server, through the
// real CLI: `Service.get`/`Proxy.get` and every function, in promise and Output form, at preview and up.
import { execFileSync } from "node:child_process";
import path from "node:path";
import type { OutputMap } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Backend, startBackend, storedVersions } from "../helpers/backends";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";

const owner = path.join(__dirname, "fixtures/lookups-owner");
const reader = path.join(__dirname, "fixtures/lookups-reader");
const API_KEY = "api-key-lookups-5e0a91";

describe.each(BACKENDS)("lookups through the real Pulumi CLI, on the %s server", (backendName) => {
  let backend: Backend;
  let registry: Registry;
  let a: TestStack;
  let b: TestStack;
  let ownerOutputs: OutputMap;
  const printed: string[] = [];
  const onOutput = (line: string) => printed.push(line);
  const value = (outputs: OutputMap, key: string) => outputs[key]?.value;

  beforeAll(async () => {
    [backend, registry] = await Promise.all([startBackend(backendName), startRegistry()]);
    const digest = await pushArtifact(registry, { path: "team/shop", tag: "v1", content: "shop bundle" });
    [a, b] = await Promise.all([
      createTestStack(owner, { stackName: "owner" }),
      createTestStack(reader, { stackName: "reader" }),
    ]);
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
  });

  afterAll(async () => {
    // No destroy of stack A: it asserts nothing, and the server and the stack's state go with the file.
    await b?.dispose();
    await a?.dispose();
    await Promise.all([backend?.close(), registry?.stop()]);
  });

  it("stack A creates a Service twice (a template change mints a second revision) and a Proxy", async () => {
    expect((await a.stack.up({ onOutput })).summary.result).toBe("succeeded");
    await a.stack.setConfig("greeting", { value: "bonjour" });
    const result = await a.stack.up({ onOutput });
    expect(result.summary.result).toBe("succeeded");
    ownerOutputs = result.outputs;
    expect(value(ownerOutputs, "latestRevision")).toMatch(/^lookup-shop-[0-9a-f]{10}$/);
    expect(value(ownerOutputs, "serviceGeneration")).toBe(2);
  });

  it("stack B's preview reads them (the functions and get run at preview)", async () => {
    const preview = await b.stack.preview({ onOutput });
    expect(preview.changeSummary).not.toHaveProperty("delete");
    // Known at preview, so the CLI prints them among the outputs.
    expect(preview.stdout).toContain(value(ownerOutputs, "latestRevision") as string);
    expect(preview.stdout).toContain(value(ownerOutputs, "serviceUid") as string);
  });

  let readerOutputs: OutputMap;

  it("stack B's up reads them with every function and Service.get: its outputs equal A's", async () => {
    const result = await b.stack.up({ onOutput });
    expect(result.summary.result).toBe("succeeded");
    readerOutputs = result.outputs;
    const o = (key: string) => value(readerOutputs, key);
    const latest = value(ownerOutputs, "latestRevision");
    for (const key of ["getLatestRevision", "fnLatestRevision", "outLatestRevision"])
      expect(o(key)).toBe(latest);
    const live = value(ownerOutputs, "liveRevision");
    for (const key of ["getLiveRevision", "fnLiveRevision", "outLiveRevision"]) expect(o(key)).toBe(live);
    const uid = value(ownerOutputs, "serviceUid");
    for (const key of ["getUid", "fnUid", "outUid"]) expect(o(key)).toBe(uid);
    expect(o("getEgressReady")).toBe(value(ownerOutputs, "egressReady"));
    expect(o("fnEgressReady")).toBe(value(ownerOutputs, "egressReady"));
    expect(o("getGeneration")).toBe(2);
    expect(o("getProxyUid")).toBe(value(ownerOutputs, "proxyUid"));
    expect((o("fnProxy") as { uid: string }).uid).toBe(value(ownerOutputs, "proxyUid"));

    const revision = await backend.client.serviceRevisions.get(latest as string);
    expect(o("fnRevisionDigest")).toBe(revision.spec.bundle.digest);
    expect(o("outRevisionDigest")).toBe(revision.spec.bundle.digest);
    expect(o("getRevisionDigest")).toBe(revision.spec.bundle.digest);
    expect(o("getSpec")).toEqual(value(ownerOutputs, "serviceSpec"));
    expect(o("fnSpec")).toEqual(value(ownerOutputs, "serviceSpec"));
    // Every revision of the Service, oldest first: the second is the latest.
    const revisions = o("fnRevisions") as string[];
    expect(revisions).toHaveLength(2);
    expect(revisions[1]).toBe(latest);
    expect(o("outRevisions")).toEqual(revisions);
    for (const key of ["fnServices", "outServices"]) expect(o(key)).toEqual(["lookup-shop"]);
    for (const key of ["fnProxies", "outProxies"]) expect(o(key)).toEqual(["lookup-edge"]);
  });

  it("gives secret fields as the API's placeholders, the Output form marked secret, and leaks no value", async () => {
    const placeholder = { vendorAlphaLogs: { key: "<API_KEY>" } };
    const spec = (key: string) => value(readerOutputs, key) as { telemetry: { thirdPartySinks: unknown } };
    expect(spec("outProxySpec").telemetry.thirdPartySinks).toEqual(placeholder);
    expect(readerOutputs.outProxySpec?.secret).toBe(true);
    expect(
      (
        value(readerOutputs, "fnProxy") as {
          spec: typeof placeholder & { telemetry: { thirdPartySinks: unknown } };
        }
      ).spec.telemetry.thirdPartySinks,
    ).toEqual(placeholder);
    const exported = execFileSync("pulumi", ["stack", "export", "--stack", b.stack.name], {
      cwd: b.dir,
      env: { ...process.env, ...b.env },
      encoding: "utf8",
    });
    expect(exported).not.toContain(API_KEY);
    expect(printed.join("\n")).not.toContain(API_KEY);
    const shown = execFileSync("pulumi", ["stack", "output", "--json", "--stack", b.stack.name], {
      cwd: b.dir,
      env: { ...process.env, ...b.env },
      encoding: "utf8",
    });
    expect(shown).not.toContain(API_KEY);
  });

  it("destroy of stack B leaves stack A's objects as they are", async () => {
    const before = await storedVersions(backend.client);
    const destroy = await b.stack.destroy({ onOutput });
    expect(destroy.summary.result).toBe("succeeded");
    expect(await storedVersions(backend.client)).toEqual(before);
    expect((await backend.client.services.get("lookup-shop")).metadata.uid).toBe(
      value(ownerOutputs, "serviceUid"),
    );
    expect((await backend.client.proxies.get("lookup-edge")).metadata.uid).toBe(
      value(ownerOutputs, "proxyUid"),
    );
  });

  it("fails on a missing name, naming the kind, the name and the API (a function and Service.get)", async () => {
    await b.stack.setConfig("missingService", { value: "no-such-service" });
    await expect(b.stack.preview({ onOutput })).rejects.toThrow(
      /no Service "no-such-service" at https?:\/\//,
    );
    await b.stack.removeConfig("missingService");
    await b.stack.setConfig("missingGet", { value: "no-such-get" });
    await expect(b.stack.preview({ onOutput })).rejects.toThrow(/no Service "no-such-get" at https?:\/\//);
    await b.stack.removeConfig("missingGet");
  });
});
