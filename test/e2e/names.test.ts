// A preview is a promise of the names `up` creates: unnamed objects through the real CLI, the names each step of
// `pulumi preview --json` plans against the names on the server after `up`, for creates and for replacements;
// with the dynamic resources on both servers, and the native plugin with Pulumi's autonaming config.
import { spawn } from "node:child_process";
import path from "node:path";
import type { OutputMap } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPlugin } from "../../scripts/native/plugin-install";
import type { Client } from "../../sdk/client";
import { kindOfTypeToken } from "../../sdk/resources/type-tokens";
import { BACKENDS, type Backend, startBackend } from "../helpers/backends";
import { collectOutput } from "../helpers/child-output";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { pushArtifact, type Registry, startRegistry } from "../helpers/registry";

/** One resource step of a preview: what it does and the object name its new state plans. */
interface PlannedStep {
  op: string;
  /** `Kind/name`. */
  object: string;
}

/**
 * `pulumi preview --json --show-sames`, as a pull-request check runs it: per resource URN, the step (`create`,
 * `same`, `replace`) and the name in its new state's (checked) inputs, a replacement's own name for `replace`.
 */
async function planned(t: TestStack): Promise<Map<string, PlannedStep>> {
  // Not spawnSync: the local server answers from this process.
  const run = await collectOutput(
    spawn("pulumi", ["preview", "--json", "--show-sames", "--stack", t.stack.name], {
      cwd: t.dir,
      env: { ...process.env, ...t.env },
    }),
  );
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  const steps = (JSON.parse(run.stdout).steps ?? []) as {
    op: string;
    urn: string;
    newState?: { type: string; inputs?: { metadata?: { name?: string } } };
  }[];
  const plan = new Map<string, PlannedStep>();
  for (const { op, urn, newState } of steps) {
    const kind = newState && kindOfTypeToken(newState.type);
    const name = newState?.inputs?.metadata?.name;
    if (kind === undefined || name === undefined) continue;
    plan.set(urn, { op, object: `${kind}/${name}` });
  }
  return plan;
}

/** `Kind/name` of every object on the server a stack declares (not the revisions the controller mints). */
async function onServerAll(client: Client): Promise<string[]> {
  const lists = await Promise.all([
    client.proxies.listAll(),
    client.services.listAll(),
    client.serviceRevisions.listAll(),
  ]);
  return lists
    .flat()
    .filter((object) => (object.metadata.ownerReferences ?? []).length === 0)
    .map((object) => `${object.kind}/${object.metadata.name}`)
    .sort();
}

const objects = (plan: Map<string, PlannedStep>) => [...plan.values()].map((step) => step.object).sort();
const namesOf = (outputs: OutputMap) => outputs.names?.value as Record<string, string>;
const GENERATED = /^[a-z0-9-]+-[0-9a-f]{5}$/;

interface Family {
  family: "dynamic" | "native";
  fixture: string;
}

const FAMILIES: Family[] = [
  { family: "dynamic", fixture: "names" },
  { family: "native", fixture: "names-native" },
];

/**
 * One server (and registry) per backend for both families, one after the other: a kube-apiserver start costs
 * seconds of CPU. Each family's stack is its own; the objects the family before it left on the server (their
 * names generated, so none is one of this stack's) are set aside when it starts, and every comparison with the
 * server is of the objects besides those: exactly the objects this stack's steps leave, as on a server of its own.
 */
describe.each(BACKENDS)(
  "the names a preview plans are the names up creates, on the %s server",
  (backendName) => {
    let backend: Backend;
    let registry: Registry;
    let digest: string;

    beforeAll(async () => {
      [backend, registry] = await Promise.all([startBackend(backendName), startRegistry()]);
      digest = await pushArtifact(registry, { path: "team/names", tag: "v1", content: "names bundle" });
    });

    afterAll(async () => {
      await Promise.all([backend?.close(), registry?.stop()]);
    });

    describe.each(FAMILIES)("$family resources", ({ family, fixture }) => {
      const dir = path.join(__dirname, "fixtures", fixture);
      let t: TestStack;
      let earlier: Set<string>;
      const printed: string[] = [];
      const onOutput = (line: string) => printed.push(line);
      /** `Kind/name` of every object on the server this stack declares: not those of the family before. */
      const onServer = async () =>
        (await onServerAll(backend.client)).filter((object) => !earlier.has(object));

      beforeAll(async () => {
        earlier = new Set(await onServerAll(backend.client));
        t = await createTestStack(dir);
        if (family === "native") installPlugin(t.env);
        await t.stack.setAllConfig({
          ...backend.config,
          repo: { value: registry.repo("team/names") },
          digest: { value: digest },
        });
      });

      afterAll(async () => {
        await t?.dispose();
      });

      const up = async () => {
        const result = await t.stack.up({ onOutput });
        expect(result.summary.result, printed.join("")).toBe("succeeded");
        return result.outputs;
      };

      let created: Map<string, PlannedStep>;

      it("creates every unnamed object under the name its preview planned, the same in two previews", async () => {
        created = await planned(t);
        expect([...created.values()].map((step) => step.op)).toEqual(
          Array.from({ length: created.size }, () => "create"),
        );
        expect(created.size).toBe(family === "dynamic" ? 4 : 3);
        for (const { object } of created.values()) expect(object.split("/")[1]).toMatch(GENERATED);
        expect(objects(await planned(t))).toEqual(objects(created));

        const names = namesOf(await up());
        expect(Object.values(names).length).toBe(created.size);
        expect(await onServer()).toEqual(objects(created));
        if (family === "dynamic") {
          // The same logical name under a component: another URN, another name.
          expect(names.inner).not.toBe(names.edge);
          expect([names.edge, names.inner]).toEqual([
            expect.stringMatching(/^edge-/),
            expect.stringMatching(/^edge-/),
          ]);
        }
      });

      it("previews no change after up", async () => {
        const preview = await t.stack.preview({ onOutput });
        expect(Object.keys(preview.changeSummary)).toEqual(["same"]);
      });

      it("replaces under a new name, created first, the one its preview planned; the old object goes", async () => {
        const before = await onServer();
        await t.stack.setAllConfig({ mode: { value: "filter" }, timeout: { value: "45s" } });
        const plan = await planned(t);
        const replaced = [...plan.values()].filter((step) => step.op !== "same");
        expect(replaced.map((step) => step.op)).toEqual(["replace", "replace"]);
        for (const { object } of replaced) {
          expect(before).not.toContain(object);
          expect(object.split("/")[1]).toMatch(/^(api|pinned)-[0-9a-f]{5}$/);
        }
        // The objects that stay keep their names.
        const kept = [...plan.values()].filter((step) => step.op === "same").map((step) => step.object);
        expect(kept.every((object) => before.includes(object))).toBe(true);

        const result = await t.stack.up({ onOutput });
        expect(result.summary.result, printed.join("")).toBe("succeeded");
        expect(result.summary.resourceChanges).toMatchObject({ replace: 2 });
        expect(await onServer()).toEqual(objects(plan));
        const { api, pinned } = namesOf(result.outputs);
        expect(replaced.map((step) => step.object).sort()).toEqual([
          `Service/${api}`,
          `ServiceRevision/${pinned}`,
        ]);
      });

      it("replaces back with the same agreement between preview and up", async () => {
        await t.stack.setAllConfig({ mode: { value: "backend" }, timeout: { value: "30s" } });
        const plan = await planned(t);
        await up();
        expect(await onServer()).toEqual(objects(plan));
      });

      if (family !== "native") return;

      describe("with Pulumi's autonaming config (pulumi:autonaming)", () => {
        const extras = async (names: string[]) =>
          t.stack.setConfig("extras", { value: JSON.stringify(names) });
        const previewFailure = async () => {
          const lines: string[] = [];
          try {
            await t.stack.preview({ onOutput: (line) => lines.push(line) });
          } catch (error) {
            return `${lines.join("")}\n${String(error)}`;
          }
          throw new Error(`the preview passed:\n${lines.join("")}`);
        };

        it("names a new object by the config's pattern, in preview and up; existing objects keep their names", async () => {
          const before = await onServer();
          // biome-ignore lint/suspicious/noTemplateCurlyInString: Pulumi's pattern syntax, not a template
          await t.stack.setConfig("pulumi:autonaming.pattern", { value: "${stack}-${name}-x" }, true);
          await extras(["extra"]);
          const plan = await planned(t);
          const steps = [...plan.values()];
          expect(steps.filter((step) => step.op === "create").map((step) => step.object)).toEqual([
            `Proxy/${t.stack.name}-extra-x`,
          ]);
          expect(
            steps
              .filter((step) => step.op === "same")
              .map((step) => step.object)
              .sort(),
          ).toEqual(before);
          await up();
          expect(await onServer()).toEqual(objects(plan));
        });

        it("uses the logical name itself with mode verbatim", async () => {
          await t.stack.removeConfig("pulumi:autonaming");
          await t.stack.setConfig("pulumi:autonaming.mode", { value: "verbatim" }, true);
          await extras(["extra", "verbatim-edge"]);
          const plan = await planned(t);
          expect([...plan.values()].filter((step) => step.op === "create")).toEqual([
            { op: "create", object: "Proxy/verbatim-edge" },
          ]);
        });

        it("refuses an unnamed new object with mode disabled, naming metadata.name; existing ones are fine", async () => {
          await t.stack.removeConfig("pulumi:autonaming");
          await t.stack.setConfig("pulumi:autonaming.mode", { value: "disabled" }, true);
          await extras(["extra"]);
          expect(Object.keys((await t.stack.preview({ onOutput })).changeSummary)).toEqual(["same"]);
          await extras(["extra", "unnamed"]);
          const output = await previewFailure();
          expect(output).toContain(
            "metadata.name: is required: the `pulumi:autonaming` config disables generated names",
          );
        });

        it("fails clearly on a pattern that gives a name the API refuses", async () => {
          await t.stack.removeConfig("pulumi:autonaming");
          // biome-ignore lint/suspicious/noTemplateCurlyInString: Pulumi's pattern syntax, not a template
          await t.stack.setConfig("pulumi:autonaming.pattern", { value: "${name}_X" }, true);
          const output = await previewFailure();
          expect(output).toContain(
            'metadata.name: the name "unnamed_X" that the `pulumi:autonaming` config gives',
          );
          await t.stack.removeConfig("pulumi:autonaming");
          await extras(["extra"]);
        });
      });
    });
  },
);
