// The resource options of current Pulumi (issue 46) on both paths, the dynamic provider and the native
// plugin, through the real CLI on the local server: hooks run once per operation and see the inputs and
// outputs of it; a replacementTrigger change replaces, with the name the preview planned; replaceWith replaces
// the follower with it; hideDiffs hides the label change from the diff; deletedWith leaves the delete to the
// object it names, and none of this API's kinds deletes another, so a tied Proxy stays on the server after a
// replacement of the one it names and after destroy (what docs/resources.md warns of).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { OutputMap } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPlugin } from "../../scripts/native/plugin-install";
import { type Backend, startBackend } from "../helpers/backends";
import { createTestStack, type TestStack } from "../helpers/pulumi";

interface HookCall {
  hook: string;
  name: string;
  id?: string;
  newInputs?: string;
  oldInputs?: string;
  newOutputs?: string;
  oldOutputs?: string;
}

const FAMILIES = ["dynamic", "native"] as const;

describe("hooks, replacementTrigger, replaceWith, hideDiffs and deletedWith on a dynamic and a native Proxy", () => {
  let backend: Backend;
  let t: TestStack;
  let hookLog: string;
  let first: OutputMap;
  const printed: string[] = [];
  const onOutput = (line: string) => printed.push(line);

  /** The hook calls since the last time, and the log emptied. */
  const calls = (): HookCall[] => {
    const lines = readFileSync(hookLog, "utf8").split("\n").filter(Boolean);
    writeFileSync(hookLog, "");
    return lines.map((line) => JSON.parse(line));
  };
  const of = (list: HookCall[], family: string) => list.filter(({ name }) => name === `${family}-edge`);

  beforeAll(async () => {
    backend = await startBackend("local", { proxyDeletionGraceMs: 50 });
    t = await createTestStack(path.join(__dirname, "fixtures/options"));
    installPlugin(t.env);
    hookLog = path.join(t.stateDir, "hooks.jsonl");
    writeFileSync(hookLog, "");
    await t.stack.setAllConfig({
      ...backend.config,
      hookLog: { value: hookLog },
      rev: { value: "a" },
      trigger: { value: "t1" },
    });
  });
  afterAll(async () => {
    await t?.dispose();
    await backend?.close();
  });

  it("create: beforeCreate sees the inputs, afterCreate the outputs, each once", async () => {
    const up = await t.stack.up({ onOutput });
    expect(up.summary.resourceChanges).toMatchObject({ create: 7 });
    first = up.outputs;
    const seen = calls();
    for (const family of FAMILIES) {
      const uid = first[`${family}Uid`]?.value;
      expect(uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(of(seen, family)).toEqual([
        expect.objectContaining({ hook: "beforeCreate", newInputs: "a" }),
        expect.objectContaining({ hook: "afterCreate", newInputs: "a", newOutputs: uid }),
      ]);
    }
    // The followers and the tied Proxies have no hooks.
    expect(seen).toHaveLength(4);
  });

  it("update: beforeUpdate and afterUpdate see old and new, each once; hideDiffs keeps the labels out of the diff", async () => {
    await t.stack.setConfig("rev", { value: "b" });
    const start = printed.length;
    const up = await t.stack.up({ onOutput, diff: true });
    expect(up.summary.resourceChanges).toMatchObject({ update: 2, same: 5 });
    const seen = calls();
    for (const family of FAMILIES) {
      const uid = first[`${family}Uid`]?.value;
      expect(of(seen, family)).toEqual([
        expect.objectContaining({ hook: "beforeUpdate", oldInputs: "a", newInputs: "b", oldOutputs: uid }),
        expect.objectContaining({ hook: "afterUpdate", oldInputs: "a", newInputs: "b", newOutputs: uid }),
      ]);
    }
    const diff = printed.slice(start).join("");
    expect(diff.match(/~ metadata \(hidden\)/g)?.length).toBeGreaterThanOrEqual(2);
    expect(diff).not.toMatch(/rev\s*:\s*"a"\s*=>\s*"b"/);
  });

  it("replacementTrigger replaces with the name the preview planned, replaceWith the follower with it; the hooks run for the delete and the create", async () => {
    await t.stack.setConfig("trigger", { value: "t2" });
    // The name each replacement is planned to create under, from the preview's engine events.
    const planned = new Map<string, string>();
    const preview = await t.stack.preview({
      onEvent: ({ resourcePreEvent }) => {
        const step = resourcePreEvent?.metadata;
        const name = step?.new?.inputs?.metadata?.name;
        if (step?.op === "create-replacement" && typeof name === "string") planned.set(step.urn, name);
      },
    });
    expect(preview.changeSummary).toMatchObject({ replace: 6, same: 1 });
    const up = await t.stack.up({ onOutput });
    expect(up.summary.resourceChanges).toMatchObject({ replace: 6, same: 1 });
    const seen = calls();
    for (const family of FAMILIES) {
      const oldUid = first[`${family}Uid`]?.value;
      const newUid = up.outputs[`${family}Uid`]?.value;
      expect(newUid).not.toBe(oldUid);
      // A replacement is created before the old object goes, under the next generated name: the planned one.
      const name = up.outputs[`${family}Name`]?.value;
      expect(name).not.toBe(first[`${family}Name`]?.value);
      expect([...planned].find(([urn]) => urn.endsWith(`::${family}-edge`))?.[1]).toBe(name);
      const hooks = of(seen, family)
        .map(({ hook }) => hook)
        .sort();
      expect(hooks).toEqual(["afterCreate", "afterDelete", "beforeCreate", "beforeDelete"]);
      expect(of(seen, family).find(({ hook }) => hook === "afterCreate")?.newOutputs).toBe(newUid);
      expect(of(seen, family).find(({ hook }) => hook === "beforeDelete")?.oldOutputs).toBe(oldUid);
    }
    // A replacement of the edge replaces the Proxy tied to it too, and the engine leaves the old tied one's
    // delete to the old edge's, which deletes nothing else: the old tied Proxies stay on the server.
    const names = (await backend.client.proxies.listAll()).map((proxy) => proxy.metadata.name);
    expect(names.filter((name) => !/-tied-/.test(name))).toHaveLength(4);
    expect(names.filter((name) => /^dynamic-tied-/.test(name))).toHaveLength(2);
    expect(names.filter((name) => /^native-tied-/.test(name))).toHaveLength(2);
  });

  it("destroy: the provider deletes what deletedWith does not tie, and the delete hooks run with the program", async () => {
    const tied = new Map(
      (await backend.client.proxies.listAll())
        .filter((proxy) => /-tied-/.test(proxy.metadata.name))
        .map((proxy) => [proxy.metadata.name, proxy.metadata.uid]),
    );
    // Without the program, the engine refuses a delete that has hooks ("the program is not running").
    const destroyed = await t.stack.destroy({ onOutput, runProgram: true });
    expect(destroyed.summary.result).toBe("succeeded");
    expect(
      calls()
        .map(({ hook }) => hook)
        .sort(),
    ).toEqual(["afterDelete", "afterDelete", "beforeDelete", "beforeDelete"]);
    // Every tied Proxy is still there, the same objects (uid); nothing else is.
    const left = await backend.client.proxies.listAll();
    expect(new Map(left.map((proxy) => [proxy.metadata.name, proxy.metadata.uid]))).toEqual(tied);
  });
});
