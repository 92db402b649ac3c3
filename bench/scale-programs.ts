// The programs of the scale benchmark: the same N objects declared with this package's classes and with
// pulumi-kubernetes' CustomResource. Half Proxies, half ServiceRevisions: the kinds no controller has to act
// on before the provider reports success (a Service waits for the controller to accept it, and no controller
// runs against kube-apiserver yet). Names start with the stack's `prefix`, so two programs can share a
// server. Both use their default provider, configured through the stack's settings.
import { KINDS } from "../sdk/schema";
import { writeProject } from "./programs";

export type ScaleProgram = "provider" | "peer";

const OBJECTS = `
const pulumi = require("@pulumi/pulumi");
const config = new pulumi.Config();
const n = config.requireNumber("n");
const prefix = config.require("prefix");
const runtime = { compatibilityDate: "2026-01-01" };
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
`;

const API_VERSIONS = JSON.stringify({
  Proxy: KINDS.Proxy.apiVersion,
  ServiceRevision: KINDS.ServiceRevision.apiVersion,
});

const SOURCES: Record<ScaleProgram, string> = {
  provider: `${OBJECTS}
const exampledev = require("@exampledev/pulumi");
for (const { kind, name, metadata, spec } of objects()) new exampledev[kind](name, { metadata, spec });
`,
  // pulumi-kubernetes deletes in the foreground by default, which waits on the garbage collector for
  // dependents; this provider asks for the server's default, background, which the annotation asks of the
  // peer too, so both delete alike.
  peer: `${OBJECTS}
const k8s = require("@pulumi/kubernetes");
const apiVersions = ${API_VERSIONS};
const annotations = { "pulumi.com/deletionPropagationPolicy": "background" };
for (const { kind, name, metadata, spec } of objects()) {
  const object = { apiVersion: apiVersions[kind], kind, metadata: { ...metadata, annotations }, spec };
  new k8s.apiextensions.CustomResource(name, object);
}
`,
};

/** Writes the program into `dir`, its `node_modules` linked to `nodeModules` (which must hold its SDK). */
export function writeScaleProgram(dir: string, program: ScaleProgram, nodeModules: string): void {
  writeProject(dir, `scale-${program}`, SOURCES[program], nodeModules);
}
