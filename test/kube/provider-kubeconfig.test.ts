import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { signClientCert } from "../../kube/pki";
import { type Client, createClient } from "../../sdk/client";
import { checked, configureProvider, created, declared, providerOf, rejection } from "../helpers/provider";

/**
 * The provider on a real kube-apiserver, configured with `exampledev:kubeconfig` and nothing else: the
 * kubeconfig `startKubeApi()` writes (the admin's token, the CA as data), and one for a user that
 * authenticates by a client certificate the environment's CA signed (mutual TLS, files relative to the
 * kubeconfig). Proxies: no controller runs against kube-apiserver yet, and a Proxy waits for none.
 */

describe("the provider against kube-apiserver through a kubeconfig", () => {
  let api: KubeApi;
  let admin: Client;

  beforeAll(async () => {
    for (const name of [
      "BASE_URL",
      "TOKEN",
      "CA_CERTIFICATE",
      "CA_CERTIFICATE_FILE",
      "KUBECONFIG",
      "CONTEXT",
    ]) {
      delete process.env[`EXAMPLEDEV_${name}`];
    }
    // No controller runs here: Proxies are created without the drain finalizer, so destroy does not wait.
    api = await startKubeApi({ drainProxies: false });
    admin = createClient({ baseUrl: api.url, token: api.token, ca: api.caCert });
  });
  afterAll(async () => {
    await admin?.close();
    await api?.close();
  });

  /** A kubeconfig in the environment's directory (beside ca.crt and the client certificates). */
  function kubeconfig(name: string, cluster: object, user: object): string {
    const file = path.join(api.dir, `${name}.kubeconfig`);
    writeFileSync(
      file,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        "current-context": name,
        clusters: [{ name, cluster: { server: api.url, ...cluster } }],
        users: [{ name, user }],
        contexts: [{ name, context: { cluster: name, user: name } }],
      }),
      { mode: 0o600 },
    );
    return file;
  }

  /** Create, read, update and delete of one Proxy through the provider as configured; state checked for `secrets`. */
  async function lifecycle(name: string, secrets: readonly string[]): Promise<void> {
    const { id, inputs, outs } = await created("Proxy", declared(name, {}, { metadata: { name } }));
    expect((await admin.proxies.get(name)).metadata.uid).toBe(outs.metadata.uid);

    const read = await providerOf("Proxy").read(id, outs);
    expect(read.props?.metadata).toMatchObject({ name, uid: outs.metadata.uid });

    const shutdown = { drainTimeout: "20s", minimumDrainTime: "40s" };
    const news = await checked("Proxy", declared(name, { shutdown }, { metadata: { name } }), inputs);
    const updated = await providerOf("Proxy").update(id, outs, news);
    expect((await admin.proxies.get(name)).spec.shutdown).toMatchObject(shutdown);

    await providerOf("Proxy").delete(id, updated.outs as typeof outs);
    const gone = await rejection(admin.proxies.get(name));
    expect(gone.message).toContain("404");

    for (const state of [inputs, outs, read, news, updated]) {
      for (const secret of secrets) expect(JSON.stringify(state)).not.toContain(secret);
    }
  }

  it("creates, reads, updates and deletes a Proxy with the kubeconfig startKubeApi wrote, the token kept out of state", async () => {
    await configureProvider({ "exampledev:kubeconfig": api.kubeconfig });
    await lifecycle("from-admin-kubeconfig", [api.token]);
  });

  it("authenticates with a client certificate (mutual TLS), files relative to the kubeconfig", async () => {
    const client = await signClientCert(api.dir, "deployer", ["system:masters"]);
    const file = kubeconfig(
      "deployer",
      { "certificate-authority": "ca.crt" },
      { "client-certificate": path.basename(client.certFile), "client-key": path.basename(client.keyFile) },
    );
    await configureProvider({ "exampledev:kubeconfig": file });
    const key = readFileSync(client.keyFile, "utf8");
    const keyBody = key.split("\n")[1] ?? key;
    await lifecycle("from-client-certificate", [keyBody]);

    // The certificate did the work: the same cluster without it is anonymous, and RBAC refuses that.
    const anonymous = kubeconfig("anonymous", { "certificate-authority": "ca.crt" }, {});
    await configureProvider({ "exampledev:kubeconfig": anonymous });
    const refused = await rejection(created("Proxy", declared("anonymous", {})));
    expect(refused.message).toContain("403");
  });

  it("skips verifying the server with insecure-skip-tls-verify, and refuses an unknown CA without it", async () => {
    const insecure = kubeconfig("insecure", { "insecure-skip-tls-verify": true }, { token: api.token });
    await configureProvider({ "exampledev:kubeconfig": insecure });
    const { outs } = await created("Proxy", declared("insecure", {}));
    await admin.proxies.delete(outs.metadata.name);

    const untrusted = kubeconfig("untrusted", {}, { token: api.token });
    await configureProvider({ "exampledev:kubeconfig": untrusted });
    const error = await rejection(created("Proxy", declared("untrusted", {})));
    expect(error.message).toMatch(/certificate/i);
    expect(error.message).not.toContain(api.token);
  });
});
