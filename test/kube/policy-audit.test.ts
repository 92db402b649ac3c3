// Issue 39: `exampledev-policy-report audit` judges what is live, on the local server and on kube-apiserver.
// Objects that break organisation policies (the server admits them: they are spec-valid) are created directly
// through the API; the audit (the built command, run as a user runs it: `npm run build` first) reports them by
// policy and name, honours an exemption, reports an expired one as such, refuses a reasonless one, prints
// SARIF that the SARIF 2.1.0 schema accepts, and writes nothing.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Identity } from "../../deploy/identities";
import { installIdentity } from "../../kube/install";
import { kubeconfigYaml } from "../../kube/kubeconfig";
import { createClient, ForbiddenError } from "../../sdk/client";
import { createRawClient } from "../../sdk/client/raw";
import { KIND_NAMES, KINDS, SECRETS_NAMESPACE } from "../../sdk/schema";
import { BACKENDS, type Backend, startBackend, storedVersions } from "../helpers/backends";
import { type ChildOutput, collectOutput } from "../helpers/child-output";
import { VALID_SPECS } from "../policy/fixtures";

const MAIN = path.resolve(__dirname, "../../dist/policies/report/main.js");
/** The package's pinned Node (the machine's may be older than the package needs). */
const NODE = path.resolve(__dirname, "../../node_modules/.bin/node");
const DIGEST = `sha256:${"b".repeat(64)}`;
const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const LATER = day(30);
const EARLIER = day(-2);

/** The official SARIF 2.1.0 schema (Microsoft's rtm.5, as published to SchemaStore), shipped by @microsoft/jest-sarif. */
function sarifValidator() {
  const schema = require("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json");
  // The schema is draft-04; one of its patterns is not a valid Unicode-mode RegExp, hence unicodeRegExp.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

/** An identity for audits: it may get, list and watch the three kinds, and nothing else. */
const AUDITOR: Identity = {
  name: "exampledev-policy-auditor",
  namespace: SECRETS_NAMESPACE,
  clusterRules: KIND_NAMES.map((kind) => ({
    apiGroups: [KINDS[kind].group],
    resources: [KINDS[kind].plural],
    verbs: ["get", "list", "watch"],
  })),
  namespaceRules: [],
};

const proxy = (name: string) => ({
  apiVersion: KINDS.Proxy.apiVersion,
  kind: "Proxy",
  metadata: { name },
  spec: structuredClone(VALID_SPECS.Proxy),
});

const service = (name: string, repo: string) => ({
  apiVersion: KINDS.Service.apiVersion,
  kind: "Service",
  metadata: { name, labels: { team: "web" } },
  spec: { ...structuredClone(VALID_SPECS.Service), source: { oci: { repo, digest: DIGEST } } },
});

const exemption = (resource: string, expires: string) => ({
  resource,
  reason: "vendor image until the mirror lands",
  owner: "team-web",
  expires,
});

const CONFIG = {
  "allowed-sources": {
    enforcementLevel: "mandatory",
    ociRepositories: ["registry.example.dev/**"],
    exemptions: [exemption("legacy-*", LATER), exemption("old-*", EARLIER)],
  },
  "required-labels": { enforcementLevel: "advisory", labels: { team: [] } },
};

describe.each(BACKENDS)("exampledev-policy-report audit on the %s backend", (backendName) => {
  let backend: Backend;
  let dir: string;
  let access: string[];

  const write = (name: string, content: object) => {
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(content));
    return file;
  };

  /** Runs the command in a child process, asynchronously: the local server answers from this process. */
  function audit(...args: string[]): Promise<ChildOutput> {
    const env = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith("EXAMPLEDEV_")) delete env[key];
    // A test that names its own --kubeconfig audits as that identity instead of the admin.
    const identity = args.includes("--kubeconfig") ? [] : access;
    return collectOutput(spawn(NODE, [MAIN, "audit", ...identity, ...args], { env }));
  }

  beforeAll(async () => {
    backend = await startBackend(backendName);
    // No controller: it would mint revisions and write statuses, and the test compares stored versions.
    await backend.pauseController();
    dir = mkdtempSync(path.join(tmpdir(), "policy-audit-"));
    const kubeconfig = backend.config["exampledev:kubeconfig"]?.value;
    const baseUrl = backend.config["exampledev:baseUrl"]?.value;
    access = kubeconfig !== undefined ? ["--kubeconfig", kubeconfig] : ["--base-url", String(baseUrl)];
    const { client } = backend;
    await client.proxies.create(proxy("audit-proxy") as never);
    for (const [name, repo] of [
      ["audit-docker", "docker.io/someone/web"],
      ["legacy-web", "docker.io/someone/legacy"],
      ["old-web", "docker.io/someone/old"],
      ["audit-ok", "registry.example.dev/team/web"],
    ]) {
      await client.services.create(service(String(name), String(repo)) as never);
    }
  });
  afterAll(async () => {
    await backend?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("reports each object by policy and name, honours a live exemption and says an expired one expired (json)", async () => {
    const before = await storedVersions(backend.client);
    const { status, stdout, stderr } = await audit(
      "--policy-pack-config",
      write("config.json", CONFIG),
      "--format",
      "json",
    );
    expect(status, stderr).toBe(1);
    const result = JSON.parse(stdout);
    expect(result.objects).toBe(5);
    const found = result.violations.map(
      ({ policy, level, kind, name }: Record<string, string>) => `${policy} ${level} ${kind}/${name}`,
    );
    expect(found.sort()).toEqual([
      "allowed-sources mandatory Service/audit-docker",
      "allowed-sources mandatory Service/old-web",
      "required-labels advisory Proxy/audit-proxy",
    ]);
    const expired = result.violations.find(({ name }: { name: string }) => name === "old-web");
    expect(expired.message).toContain(`its exemption expired on ${EARLIER}`);
    expect(expired.path).toBe("spec.source.oci.repo");
    expect(result.exemptions).toEqual([
      {
        policy: "allowed-sources",
        kind: "Service",
        name: "legacy-web",
        reason: "vendor image until the mirror lands",
        owner: "team-web",
        expires: LATER,
      },
    ]);
    // Nothing was written: every stored object keeps its resourceVersion.
    expect(await storedVersions(backend.client)).toEqual(before);
  });

  it.runIf(backendName === "kube")(
    "runs as an identity that may only get, list and watch the three kinds (RBAC: no write verb)",
    async () => {
      const admin = parse(readFileSync(access[1] as string, "utf8"));
      const server: string = admin.clusters[0].cluster.server;
      const ca = Buffer.from(admin.clusters[0].cluster["certificate-authority-data"], "base64").toString();
      const token = await installIdentity(
        createRawClient({
          baseUrl: server,
          token: admin.users[0].user.token,
          ca,
          userAgent: "policy-audit-test",
        }),
        AUDITOR,
      );
      // The identity can write nothing: kube-apiserver refuses it (403) before any admission.
      const readOnly = createClient({ baseUrl: server, token, ca });
      try {
        await expect(readOnly.proxies.create(proxy("audit-forbidden") as never)).rejects.toBeInstanceOf(
          ForbiddenError,
        );
      } finally {
        await readOnly.close();
      }
      const auditorConfig = path.join(dir, "auditor.kubeconfig");
      writeFileSync(
        auditorConfig,
        kubeconfigYaml(server, ca, { name: AUDITOR.name, credentials: { token } }),
      );
      const { status, stdout, stderr } = await audit(
        "--kubeconfig",
        auditorConfig,
        "--policy-pack-config",
        write("config.json", CONFIG),
        "--format",
        "json",
      );
      // The same findings as the admin's audit: everything the audit does, a read-only identity may do.
      expect(status, stderr).toBe(1);
      expect(JSON.parse(stdout)).toMatchObject({ objects: 5 });
      expect(JSON.parse(stdout).violations).toHaveLength(3);
    },
  );

  it("prints text grouped by policy, and exits 0 when nothing mandatory is broken", async () => {
    const text = await audit("--policy-pack-config", write("config.json", CONFIG));
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(
      /\[mandatory\] allowed-sources \(2\)\n {2}Service "audit-docker": spec\.source\.oci\.repo/,
    );
    expect(text.stdout).toContain("exemptions (1)");
    expect(text.stdout).toContain("5 objects, 2 mandatory and 1 advisory violations, 1 exempted");

    const advisory = {
      ...CONFIG,
      "allowed-sources": { ...CONFIG["allowed-sources"], enforcementLevel: "advisory" },
    };
    const passed = await audit("--policy-pack-config", write("advisory.json", advisory));
    expect(passed.status, passed.stderr).toBe(0);
    // Without a config the organisation policies stay disabled, and these spec-valid objects pass.
    expect((await audit()).status).toBe(0);
  });

  it("prints SARIF 2.1.0 that the official schema accepts, ruleId the policy's name", async () => {
    const { status, stdout } = await audit(
      "--policy-pack-config",
      write("config.json", CONFIG),
      "--format",
      "sarif",
    );
    expect(status).toBe(1);
    const sarif = JSON.parse(stdout);
    const validate = sarifValidator();
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    const results = sarif.runs[0].results.map(
      (r: {
        ruleId: string;
        level: string;
        locations: { logicalLocations: { fullyQualifiedName: string }[] }[];
      }) => `${r.ruleId} ${r.level} ${r.locations[0]?.logicalLocations[0]?.fullyQualifiedName}`,
    );
    expect(results.sort()).toEqual([
      "allowed-sources error Service/audit-docker",
      "allowed-sources error Service/old-web",
      "allowed-sources note Service/legacy-web",
      "required-labels warning Proxy/audit-proxy",
    ]);
  });

  it("refuses a reasonless exemption and other usage errors with exit status 2", async () => {
    const { reason: _, ...reasonless } = exemption("legacy-*", LATER);
    const refused = await audit(
      "--policy-pack-config",
      write("reasonless.json", {
        "allowed-sources": { enforcementLevel: "mandatory", exemptions: [reasonless] },
      }),
    );
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(
      'policy config "allowed-sources": setting "exemptions[0].reason" is missing',
    );
    expect((await audit("--format", "xml")).status).toBe(2);
    const unknown = await audit(
      "--policy-pack-config",
      write("unknown.json", { "no-such-policy": "mandatory" }),
    );
    expect(unknown.status).toBe(2);
  });
});
