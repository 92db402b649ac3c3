// The programs of the scale benchmark: the same N objects declared with this package's classes and with
// pulumi-kubernetes' CustomResource. Two workloads:
// - "objects": half Proxies, half ServiceRevisions, the kinds no controller has to act on before the
//   provider reports success; both providers wait for nothing on create.
// - "services": N Services (an OCI source pinned by digest, so no registry is asked), each waited for until
//   its revision is live: this provider's Service waits for the controller to accept the generation and its
//   revision to be live (provider/await/conditions.ts), the peer's CustomResource for the annotation a user
//   would write, `pulumi.com/waitFor: jsonpath={.status.liveRevision}` (pulumi-kubernetes 4.18 and later).
// Names start with the stack's `prefix`, so two programs can share a server. Both use their default
// provider, configured through the stack's settings.
import { KINDS } from "../sdk/schema";
import { writeProject } from "./programs";

export type ScaleProgram = "provider" | "peer";
export type ScaleWorkload = "objects" | "services";

/** What the peer's Services wait for: the controller's status write that names the live revision. */
export const PEER_WAIT_FOR = "jsonpath={.status.liveRevision}";

const PREAMBLE = `
const pulumi = require("@pulumi/pulumi");
const config = new pulumi.Config();
const n = config.requireNumber("n");
const prefix = config.require("prefix");
const runtime = { compatibilityDate: "2026-01-01" };
`;

const OBJECTS: Record<ScaleWorkload, string> = {
  objects: `${PREAMBLE}
const bundle = { repo: "registry.bench.invalid/team/app", digest: "sha256:" + "ab".repeat(32) };
function objects() {
  const result = [];
  for (let i = 0; i < n; i++) {
    const name = prefix + "-" + i;
    const metadata = { name, labels: { bench: "scale" } };
    if (i % 2 === 0) result.push({ kind: "Proxy", name, metadata, spec: { shutdown: { drainTimeout: "10s" } } });
    else result.push({ kind: "ServiceRevision", name, metadata, spec: { runtime, bundle } });
  }
  return result;
}
`,
  services: `${PREAMBLE}
const source = { oci: { repo: "registry.bench.invalid/team/app", digest: "sha256:" + "cd".repeat(32) } };
function objects() {
  const result = [];
  for (let i = 0; i < n; i++) {
    const name = prefix + "-" + i;
    const metadata = { name, labels: { bench: "scale" } };
    result.push({ kind: "Service", name, metadata, spec: { source, template: { spec: { runtime } } } });
  }
  return result;
}
`,
};

const API_VERSIONS = JSON.stringify({
  Proxy: KINDS.Proxy.apiVersion,
  ServiceRevision: KINDS.ServiceRevision.apiVersion,
  Service: KINDS.Service.apiVersion,
});

const PROVIDER = `
const exampledev = require("@exampledev/pulumi");
for (const { kind, name, metadata, spec } of objects()) new exampledev[kind](name, { metadata, spec });
`;

// pulumi-kubernetes deletes in the foreground by default, which waits on the garbage collector for
// dependents; this provider asks for the server's default, background, which the annotation asks of the
// peer too, so both delete alike.
const peer = (workload: ScaleWorkload) => `
const k8s = require("@pulumi/kubernetes");
const apiVersions = ${API_VERSIONS};
const annotations = ${JSON.stringify({
  "pulumi.com/deletionPropagationPolicy": "background",
  ...(workload === "services" && { "pulumi.com/waitFor": PEER_WAIT_FOR }),
})};
for (const { kind, name, metadata, spec } of objects()) {
  const object = { apiVersion: apiVersions[kind], kind, metadata: { ...metadata, annotations }, spec };
  new k8s.apiextensions.CustomResource(name, object);
}
`;

/** Writes the program into `dir`, its `node_modules` linked to `nodeModules` (which must hold its SDK). */
export function writeScaleProgram(
  dir: string,
  program: ScaleProgram,
  workload: ScaleWorkload,
  nodeModules: string,
): void {
  const source = OBJECTS[workload] + (program === "peer" ? peer(workload) : PROVIDER);
  writeProject(dir, `scale-${workload}-${program}`, source, nodeModules);
}
