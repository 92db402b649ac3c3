import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMISSION_IDENTITY, ADMISSION_NAMESPACE_NAME, CONTROLLER_IDENTITY } from "../../deploy/identities";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { SECRETS_NAMESPACE } from "../../sdk/schema";

/**
 * What each identity may do, as kube-apiserver answers `kubectl auth can-i --list`, is exactly the table of
 * docs/kubernetes.md ("What each identity may do"), in each namespace that matters: where the Secrets of
 * secret values are (SECRETS_NAMESPACE), where the webhook's TLS and CA keys are (ADMISSION_NAMESPACE_NAME),
 * and any other. The rules every authenticated user has (those of a service account bound to nothing: self
 * reviews, discovery URLs, clustertrustbundles from 1.36 on) are left out.
 */

const REPO = path.resolve(__dirname, "../..");
const run = promisify(execFile);

/** `<identity> | <namespace> | <resource> | <resource names> | <verbs>` rows of the docs' table. */
async function documented(): Promise<string[]> {
  const page = await readFile(path.join(REPO, "docs/kubernetes.md"), "utf8");
  const section = page.split("### What each identity may do")[1]?.split("\n\n|")[1];
  if (section === undefined)
    throw new Error("docs/kubernetes.md has no table under 'What each identity may do'");
  return `|${section}`
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .slice(2)
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/`/g, ""))
        .join(" | "),
    )
    .sort();
}

describe("kubectl auth can-i --list for both identities", () => {
  let api: KubeApi;
  beforeAll(async () => {
    api = await startKubeApi();
  }, 600_000);
  afterAll(() => api?.close());

  it("answers exactly the table in docs/kubernetes.md", async () => {
    /** `resource | names | verbs` of each resource rule kubectl lists for `user` in `namespace`. */
    const rules = async (user: string, namespace: string) => {
      const { stdout } = await run("kubectl", [
        `--kubeconfig=${api.kubeconfig}`,
        ...["auth", "can-i", "--list", `--as=${user}`, "-n", namespace, "--no-headers"],
      ]);
      return stdout
        .trim()
        .split("\n")
        .map((line) => {
          // Resources, Non-Resource URLs, Resource Names, Verbs: columns of two spaces or more.
          const [resource = "", urls = "", names = "", verbs = ""] = line.trim().split(/\s{2,}/);
          // A non-resource URL's row has no resource (its first column is the URL list).
          return resource.startsWith("[") || urls !== "[]" ? undefined : [resource, names, verbs].join(" | ");
        })
        .filter((rule) => rule !== undefined);
    };
    const namespaces = [SECRETS_NAMESPACE, ADMISSION_NAMESPACE_NAME, "default"];
    const rows: string[] = [];
    for (const identity of [ADMISSION_IDENTITY, CONTROLLER_IDENTITY]) {
      const user = `system:serviceaccount:${identity.namespace}:${identity.name}`;
      for (const namespace of namespaces) {
        // What a service account bound to nothing has too (self reviews; from 1.36 on, reading
        // clustertrustbundles) is the release's, not the identity's.
        const everyone = new Set(await rules("system:serviceaccount:default:bound-to-nothing", namespace));
        for (const rule of await rules(user, namespace)) {
          if (!everyone.has(rule)) rows.push([identity.name, namespace, rule].join(" | "));
        }
      }
    }
    // A rule answered in all three namespaces is a cluster-wide one (the three kinds are cluster-scoped).
    const collapsed = new Map<string, Set<string>>();
    for (const row of rows) {
      const [name, namespace, ...rest] = row.split(" | ");
      const key = [name, ...rest].join(" | ");
      collapsed.set(key, (collapsed.get(key) ?? new Set()).add(namespace as string));
    }
    rows.length = 0;
    for (const [key, namespaces] of collapsed) {
      const [name, ...rest] = key.split(" | ");
      const where = namespaces.size === 3 ? "cluster-wide" : [...namespaces].sort().join(", ");
      rows.push([name, where, ...rest].join(" | "));
    }
    rows.sort();
    console.log(rows.join("\n"));
    expect(rows).toEqual(await documented());
  });

  it("lets the controller change a Proxy's finalizers and nothing else (its ValidatingAdmissionPolicy)", async () => {
    const kubectl = (...args: string[]) =>
      run("kubectl", [`--kubeconfig=${api.kubeconfig}`, ...args]).then(
        ({ stdout }) => ({ ok: true, output: stdout }),
        (error: { stderr?: string }) => ({ ok: false, output: error.stderr ?? "" }),
      );
    const controller = `system:serviceaccount:${CONTROLLER_IDENTITY.namespace}:${CONTROLLER_IDENTITY.name}`;
    const manifest = JSON.stringify({
      apiVersion: "core.example.dev/v1alpha2",
      kind: "Proxy",
      metadata: { name: "guarded" },
      spec: {},
    });
    const manifestFile = path.join(api.dir, "guarded.json");
    await writeFile(manifestFile, manifest);
    expect((await kubectl("create", "-f", manifestFile)).ok).toBe(true);
    // A merge patch as the controller sends it (no GET first, which it may not do), impersonated by the admin.
    const patch = async (body: unknown, as?: string) => {
      const answer = await request(`${api.url}/apis/core.example.dev/v1alpha2/proxies/guarded`, {
        method: "PATCH",
        dispatcher: api.dispatcher,
        headers: {
          authorization: `Bearer ${api.token}`,
          "content-type": "application/merge-patch+json",
          ...(as !== undefined && { "impersonate-user": as }),
        },
        body: JSON.stringify(body),
      });
      const output = await answer.body.text();
      return { ok: answer.statusCode === 200, output };
    };

    // kube-apiserver loads an admission policy and its binding from its informers, a moment after they are
    // stored (longer on a loaded machine): wait until the policy answers before judging what it allows.
    const enforced = async () => {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
        const answer = await patch({ metadata: { labels: { probe: String(Date.now()) } } }, controller);
        if (!answer.ok && answer.output.includes("finalizers only")) return true;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return false;
    };
    expect(await enforced()).toBe(true);
    const spec = await patch({ spec: { shutdown: { drainTimeout: "5s" } } }, controller);
    expect(spec).toMatchObject({ ok: false, output: expect.stringContaining("finalizers only") });
    const labels = await patch({ metadata: { labels: { taken: "yes" } } }, controller);
    expect(labels).toMatchObject({ ok: false, output: expect.stringContaining("finalizers only") });
    expect((await patch({ metadata: { finalizers: ["example.dev/kept"] } }, controller)).ok).toBe(true);
    // Anyone else is not bound by it.
    expect((await patch({ metadata: { labels: { taken: "yes" }, finalizers: null } })).ok).toBe(true);
  });
});
