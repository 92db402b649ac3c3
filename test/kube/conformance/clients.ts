import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { KINDS } from "../../../sdk/schema";
import { type Json, manifest } from "../../helpers/server";
import type { Backend } from "./backends";

const { group, version, plural } = KINDS.Proxy;

/** kubectl (v1.32 on PATH): create from a file, list by label, label, read back, delete. */
export async function kubectlSteps(server: Backend, test: string): Promise<void> {
  const file = path.join(tmpdir(), `${test}.json`);
  await writeFile(file, JSON.stringify(manifest("Proxy", test, {}, { labels: { test } })));
  expect(await server.kubectl("create", "-f", file)).toContain(`proxy.core.example.dev/${test} created`);
  const listed = JSON.parse(await server.kubectl("get", "proxies", "-l", `test=${test}`, "-o", "json"));
  expect(listed.items.map((item: Json) => item.metadata.name)).toEqual([test]);
  await server.kubectl("label", "proxy", test, "step=two");
  expect(await server.kubectl("get", "proxy", test, "-o", "jsonpath={.metadata.labels.step}")).toBe("two");
  await server.kubectl("delete", "proxy", test, "--grace-period=0", "--wait=true");
  expect(await server.kubectl("get", "proxies", "-l", `test=${test}`, "-o", "name")).toBe("");
}

/**
 * kubectl and the status subresource: `patch --subresource=status` (merge, JSON and apply) changes only the
 * status, `get --subresource=status` reads it, as a table too.
 */
export async function kubectlStatusSteps(server: Backend, test: string): Promise<void> {
  const file = path.join(tmpdir(), `${test}.json`);
  await writeFile(file, JSON.stringify(manifest("Proxy", test, {}, { labels: { test } })));
  await server.kubectl("create", "-f", file);
  const patched = await server.kubectl(
    "patch",
    "proxy",
    test,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify({ spec: { provider: "aws" }, status: { phase: "Ready" } }),
  );
  expect(patched).toContain(`proxy.core.example.dev/${test} patched`);
  const read = JSON.parse(await server.kubectl("get", "proxy", test, "--subresource=status", "-o", "json"));
  expect(read.status).toEqual({ phase: "Ready" });
  expect(read.spec.provider).toBe("cloud");
  await server.kubectl(
    "patch",
    "proxy",
    test,
    "--subresource=status",
    "--type=json",
    "-p",
    JSON.stringify([{ op: "add", path: "/status/observedGeneration", value: 1 }]),
  );
  const table = await server.kubectl("get", "proxy", test, "--subresource=status");
  expect(table.split("\n")[0]?.split(/\s+/)).toEqual(["NAME", "PROVIDER", "READY", "AGE"]);
  expect(table).toContain(test);
  const statusFile = path.join(tmpdir(), `${test}-status.json`);
  const applied = {
    apiVersion: `${group}/${version}`,
    kind: "Proxy",
    metadata: { name: test },
    status: { phase: "Applied" },
  };
  await writeFile(statusFile, JSON.stringify(applied));
  await server.kubectl(
    "apply",
    "--server-side",
    "--subresource=status",
    "--field-manager=operator",
    "--force-conflicts",
    "-f",
    statusFile,
  );
  const after = JSON.parse(await server.kubectl("get", "proxy", test, "-o", "json"));
  expect(after.status).toEqual({ phase: "Applied", observedGeneration: 1 });
  expect(after.metadata.generation).toBe(1);
  await server.kubectl("delete", "proxy", test, "--grace-period=0", "--wait=true");
}

/**
 * @kubernetes/client-node 2.0.1: CustomObjectsApi create, list, merge patch and delete, and its Watch
 * seeing each change. An ES module: imported where used (the tests are CommonJS).
 */
export async function clientNodeSteps(server: Backend, test: string): Promise<void> {
  const k8s = await import("@kubernetes/client-node");
  const config = new k8s.KubeConfig();
  config.loadFromFile(server.kubeconfig);
  const api = config.makeApiClient(k8s.CustomObjectsApi);
  const seen: string[] = [];
  let changed: () => void = () => {};
  const watch = await new k8s.Watch(config).watch(
    `/apis/${group}/${version}/${plural}`,
    { labelSelector: `test=${test}` },
    (type, object) => {
      seen.push(`${type} ${object.metadata.name} ${object.metadata.labels?.step ?? ""}`.trim());
      changed();
    },
    () => {},
  );
  const until = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`watch saw only ${JSON.stringify(seen)}`)), 10_000);
      changed = () => {
        if (seen.length < count) return;
        clearTimeout(timer);
        resolve();
      };
      changed();
    });
  try {
    await api.createClusterCustomObject({
      group,
      version,
      plural,
      body: manifest("Proxy", test, {}, { labels: { test } }),
    });
    const listed = await api.listClusterCustomObject({
      group,
      version,
      plural,
      labelSelector: `test=${test}`,
    });
    expect(listed.items.map((item: Json) => item.metadata.name)).toEqual([test]);
    await api.patchClusterCustomObject(
      { group, version, plural, name: test, body: { metadata: { labels: { step: "two" } } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    await api.deleteClusterCustomObject({ group, version, plural, name: test, gracePeriodSeconds: 0 });
    await until(3);
    expect(seen).toEqual([`ADDED ${test}`, `MODIFIED ${test} two`, `DELETED ${test} two`]);
  } finally {
    watch.abort();
  }
}
