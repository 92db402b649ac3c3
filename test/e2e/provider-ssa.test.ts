import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, CREATE_TOKEN_ANNOTATION } from "../../sdk/client";
import { KINDS } from "../../sdk/schema";
import { BACKENDS, type Backend, proxiesObserved, startBackend, storedVersions } from "../helpers/backends";
import { createTestStack, type TestStack } from "../helpers/pulumi";

const fixture = path.join(__dirname, "fixtures/ssa");
const API_KEY = "ssa-api-key-e2e-6b0d2a";
const NAME = "ssa-edge";

describe.each(BACKENDS)(
  "server-side apply and server dry run through the real Pulumi CLI, on the %s server",
  (backendName) => {
    let backend: Backend;
    let client: Client;
    let t: TestStack;
    const printed: string[] = [];
    const onOutput = (line: string) => printed.push(line);

    beforeAll(async () => {
      backend = await startBackend(backendName);
      client = backend.client;
      t = await createTestStack(fixture);
      await t.stack.setAllConfig({
        ...backend.config,
        "exampledev:serverSideApply": { value: "true" },
        apiKey: { value: API_KEY, secret: true },
      });
    });
    afterAll(async () => {
      await t?.dispose();
      await backend?.close();
    });

    const up = async () => {
      const result = await t.stack.up({ onOutput });
      expect(result.summary.result).toBe("succeeded");
      return result;
    };
    const failure = (run: Promise<unknown>) =>
      run.then(
        () => {
          throw new Error("expected the command to fail");
        },
        (error: Error) => String(error),
      );
    const stored = () => client.proxies.get(NAME);

    /** Another tool's server-side apply (as `kubectl apply --server-side` sends it). */
    async function applyAs(
      manager: string,
      configuration: { metadata?: object; spec?: object },
      force = false,
    ) {
      const { apiVersion, group, version, plural } = KINDS.Proxy;
      const query = `fieldManager=${manager}${force ? "&force=true" : ""}`;
      const { status, text } = await backend.call(
        "PATCH",
        `/apis/${group}/${version}/${plural}/${NAME}?${query}`,
        JSON.stringify({
          apiVersion,
          kind: "Proxy",
          ...configuration,
          metadata: { ...configuration.metadata, name: NAME },
        }),
        "application/apply-patch+yaml",
      );
      expect(status, text).toBe(200);
    }

    // The managers of the object's own fields: the controller's Proxy readiness is its entry on the status
    // subresource, as kube-apiserver keeps it, and no tool's apply contends with it.
    const managers = (object: Awaited<ReturnType<typeof stored>>) =>
      object.metadata.managedFields
        ?.filter(({ subresource }) => subresource !== "status")
        .map(({ manager, operation }) => [manager, operation])
        .sort();
    let createdUid: string | undefined;

    it("creates as the field manager pulumi-exampledev", async () => {
      await up();
      const created = await stored();
      // Created by POST (the one write that never takes over an object holding the name), then made its apply's.
      expect(managers(created)).toEqual([["pulumi-exampledev", "Apply"]]);
      expect(created.metadata.annotations?.[CREATE_TOKEN_ANNOTATION]).toEqual(expect.any(String));
      createdUid = created.metadata.uid;
    });

    // One up for the update and for the label another manager set (an up each before): the update's own
    // entry in managedFields is still exactly one Apply of pulumi-exampledev, beside the other manager's.
    it("updates as pulumi-exampledev keeping a label another manager set, and refresh --expect-no-changes sees no drift", async () => {
      await applyAs("kubectl", { metadata: { labels: { oncall: "team-a" } } });
      await t.stack.setConfig("drainTimeout", { value: "15s" });
      await up();
      const object = await stored();
      expect(object.metadata.uid).toBe(createdUid);
      expect(object.metadata.labels).toEqual({ tier: "edge", oncall: "team-a" });
      expect(object.spec.shutdown.drainTimeout).toBe("15s");
      expect(managers(object)).toEqual([
        ["kubectl", "Apply"],
        ["pulumi-exampledev", "Apply"],
      ]);

      const refresh = await t.stack.refresh({ onOutput, expectNoChanges: true });
      expect(refresh.summary.result).toBe("succeeded");
      const preview = await t.stack.preview({ onOutput });
      expect(Object.keys(preview.changeSummary)).toEqual(["same"]);
      const { deployment } = await t.stack.exportStack();
      expect(JSON.stringify(deployment)).not.toContain("managedFields");
    });

    it("fails up on a spec field another manager owns, naming it; serverSideApplyForce takes it over", async () => {
      await applyAs("kubectl", { spec: { shutdown: { drainTimeout: "25s" } } }, true);
      await proxiesObserved(client);
      const before = await stored();
      await t.stack.setConfig("drainTimeout", { value: "10s" });
      const message = await failure(t.stack.up({ onOutput }));
      expect(message).toContain('conflict with "kubectl"');
      expect(message).toContain(".spec.shutdown.drainTimeout");
      expect(message).toContain("exampledev:serverSideApplyForce");
      expect(await stored()).toEqual(before);

      await t.stack.setConfig("exampledev:serverSideApplyForce", { value: "true" });
      await up();
      expect((await stored()).spec.shutdown.drainTimeout).toBe("10s");
      await t.stack.removeConfig("exampledev:serverSideApplyForce");
    });

    describe("with exampledev:serverDryRun", () => {
      beforeAll(async () => {
        await t.stack.setConfig("exampledev:serverDryRun", { value: "true" });
        await client.proxies.create({ metadata: { name: "held-elsewhere" }, spec: {} });
      });

      it("fails preview of a create under a name another stack holds, writing nothing", async () => {
        await t.stack.setConfig("extraName", { value: "held-elsewhere" });
        await proxiesObserved(client);
        const versions = await storedVersions(client);
        const message = await failure(t.stack.preview({ onOutput }));
        expect(message).toContain("server dry run");
        expect(message).toContain('Proxy "held-elsewhere" already exists on the server');
        expect(await storedVersions(client)).toEqual(versions);
        await t.stack.removeConfig("extraName");
      });

      it("fails preview of an invalid update left to the policy pack, with the API's causes", async () => {
        await t.stack.setAllConfig({
          "exampledev:deferValidationToPolicies": { value: "true" },
          drainTimeout: { value: "90s" },
        });
        await proxiesObserved(client);
        const versions = await storedVersions(client);
        const message = await failure(t.stack.preview({ onOutput }));
        expect(message).toContain("server dry run");
        expect(message).toContain("422 Invalid");
        expect(message).toContain("spec.shutdown.minimumDrainTime");
        expect(await storedVersions(client)).toEqual(versions);
      });

      it("passes preview of a valid create and update, and writes nothing", async () => {
        await t.stack.setAllConfig({ drainTimeout: { value: "12s" }, extraName: { value: "ssa-free" } });
        await proxiesObserved(client);
        const before = await stored();
        await proxiesObserved(client);
        const versions = await storedVersions(client);
        const preview = await t.stack.preview({ onOutput });
        expect(preview.changeSummary).toMatchObject({ create: 1, update: 1 });
        expect(await storedVersions(client)).toEqual(versions);
        expect(await stored()).toEqual(before);
        await expect(client.proxies.get("ssa-free")).rejects.toThrow(/not found/i);
      });

      it("runs up with it (asking first, then writing)", async () => {
        await up();
        expect((await stored()).spec.shutdown.drainTimeout).toBe("12s");
        expect((await client.proxies.get("ssa-free")).metadata.managedFields?.[0]?.manager).toBe(
          "pulumi-exampledev",
        );
      });

      it("asks nothing at refresh: drift on a field another manager took is reported, not refused", async () => {
        // refresh configures the provider with the config of the last up, which had the dry run on.
        await applyAs("kubectl", { spec: { shutdown: { drainTimeout: "30s" } } }, true);
        await proxiesObserved(client);
        const versions = await storedVersions(client);
        const refresh = await t.stack.refresh({ onOutput });
        expect(refresh.summary.result).toBe("succeeded");
        expect(refresh.summary.resourceChanges).toMatchObject({ update: 1 });
        expect(await storedVersions(client)).toEqual(versions);
      });
    });

    it("never prints the API key", () => {
      expect(printed.join("\n")).not.toContain(API_KEY);
    });
  },
);
