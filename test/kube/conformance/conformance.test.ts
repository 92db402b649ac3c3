import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Backend, startKubeBackend, startLocalBackend } from "./backends";
import { clientNodeSteps, kubectlStatusSteps, kubectlSteps } from "./clients";
import { RUN_COUNT, unique } from "./helpers";
import { propagationTests } from "./propagation";
import { sharedTests } from "./shared";

/**
 * Issue 24's differential conformance: the same Kubernetes-behaviour tests against the local server and
 * against kube-apiserver serving the CRDs, one backend after the other (one kube-apiserver at a time).
 * Where the two must differ, differences.ts says how and why.
 */
const BACKENDS = [
  { name: "local", start: startLocalBackend },
  { name: "kube", start: startKubeBackend },
] as const;

describe.each(BACKENDS)("Kubernetes behaviour on the $name server", ({ start }) => {
  let server: Backend;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.close();
  });
  const backend = () => server;

  sharedTests(backend);
  propagationTests(backend);

  it("kubectl: create, list, label, get, delete", async () => {
    await kubectlSteps(server, unique("kubectl"));
    RUN_COUNT.set(server.name, (RUN_COUNT.get(server.name) ?? 0) + 1);
  });

  it("kubectl: patch, get and apply --subresource=status", async () => {
    await kubectlStatusSteps(server, unique("kubectl-status"));
    RUN_COUNT.set(server.name, (RUN_COUNT.get(server.name) ?? 0) + 1);
  });

  it("@kubernetes/client-node: create, list, patch, delete, and its Watch sees each", async () => {
    await clientNodeSteps(server, unique("client-node"));
    RUN_COUNT.set(server.name, (RUN_COUNT.get(server.name) ?? 0) + 1);
  });
});

afterAll(() => {
  const counts = BACKENDS.map(({ name }) => `${name} ${RUN_COUNT.get(name) ?? 0}`);
  console.log(`conformance: shared tests passed per backend: ${counts.join(", ")}`);
});

it("ran every shared test on both backends", () => {
  expect(RUN_COUNT.get("local")).toBe(RUN_COUNT.get("kube"));
});
