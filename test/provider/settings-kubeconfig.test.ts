import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import { NativeProvider } from "../../provider/native/native-provider";
import { createClient } from "../../sdk/client";
import { NATIVE_TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import {
  configureProvider,
  created,
  declared,
  type LoopbackProxy,
  type ProxyHandler,
  providerOf,
  rejection,
  startLoopbackProxy,
  statusBody,
} from "../helpers/provider";
import { startTestServer, type TestServer } from "../helpers/server";
import { SECRETS } from "./fixtures";

/**
 * The provider configured with `exampledev:kubeconfig` alone, against the local server: the kubeconfig's
 * server and token are used, explicit settings win, and the token read from the file appears in no output,
 * error or warning. (Against kube-apiserver, with a client certificate too: test/kube/provider-kubeconfig.)
 */

const TOKEN = SECRETS.token;

describe("provider settings from a kubeconfig", () => {
  let server: TestServer;
  let dir: string;
  let proxy: LoopbackProxy | undefined;
  let count = 0;

  beforeAll(async () => {
    server = await startTestServer({ logLevel: "warn", token: TOKEN });
    dir = mkdtempSync(path.join(tmpdir(), "exampledev-provider-kubeconfig-"));
  });
  beforeEach(() => {
    // Only the kubeconfig may give the address and the token.
    vi.stubEnv("EXAMPLEDEV_BASE_URL", "");
    vi.stubEnv("EXAMPLEDEV_TOKEN", "");
    vi.stubEnv("EXAMPLEDEV_KUBECONFIG", "");
    vi.stubEnv("EXAMPLEDEV_CONTEXT", "");
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A kubeconfig for `url` with `user`; the token in a file beside it unless the user says otherwise. */
  function kubeconfig(url: string, user: object = { tokenFile: "token" }): string {
    const home = path.join(dir, `kube-${count++}`);
    const file = path.join(home, "config");
    mkdirSync(home);
    writeFileSync(path.join(home, "token"), `${TOKEN}\n`);
    writeFileSync(
      file,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        "current-context": "local",
        clusters: [{ name: "local", cluster: { server: url } }],
        users: [{ name: "deployer", user }],
        contexts: [{ name: "local", context: { cluster: "local", user: "deployer" } }],
      }),
    );
    return file;
  }

  async function through(handler: ProxyHandler): Promise<LoopbackProxy> {
    proxy = await startLoopbackProxy(server.url, handler);
    return proxy;
  }

  it("creates and reads with the kubeconfig's server and tokenFile, and keeps the token out of the state", async () => {
    await configureProvider({ "exampledev:kubeconfig": kubeconfig(server.url) });
    const { id, inputs, outs } = await created("Proxy", declared("from-kubeconfig", {}));
    expect(server.store.get("Proxy", outs.metadata.name)).toBeDefined();
    const read = await providerOf("Proxy").read(id, outs);
    expect(read.props?.metadata).toMatchObject({ name: outs.metadata.name });
    for (const state of [inputs, outs, read]) expect(JSON.stringify(state)).not.toContain(TOKEN);
  });

  it("takes the kubeconfig from EXAMPLEDEV_KUBECONFIG", async () => {
    vi.stubEnv("EXAMPLEDEV_KUBECONFIG", kubeconfig(server.url, { token: TOKEN }));
    await configureProvider({});
    const { outs } = await created("Proxy", declared("from-env-kubeconfig", {}));
    expect(server.store.get("Proxy", outs.metadata.name)).toBeDefined();
  });

  it("lets EXAMPLEDEV_TOKEN and exampledev:baseUrl win over the kubeconfig, field by field", async () => {
    const seen = await through((_request, forward) => forward());
    const stale = kubeconfig("http://127.0.0.1:1", { token: "stale-token" });
    vi.stubEnv("EXAMPLEDEV_TOKEN", TOKEN);
    await configureProvider({ "exampledev:kubeconfig": stale, "exampledev:baseUrl": seen.url });
    await created("Proxy", declared("edge", {}, { metadata: { name: "explicit-wins" } }));
    expect(seen.exchanges.map((exchange) => exchange.status)).toContain(201);
    expect(server.store.get("Proxy", "explicit-wins")).toBeDefined();
  });

  it("never puts the kubeconfig's token in an error message or a warning, even when a server quotes it", async () => {
    const quoting = await through(async (request, forward) => {
      if (request.method === "GET") {
        const answer = await forward();
        return {
          ...answer,
          headers: { ...answer.headers, warning: `299 - "seen ${request.headers.authorization}"` },
        };
      }
      return {
        status: 403,
        body: statusBody(403, "Forbidden", `no access for ${request.headers.authorization}`, {
          causes: [{ field: "metadata.name", message: `header ${request.headers.authorization}` }],
        }),
      };
    });
    const file = kubeconfig(quoting.url);
    await configureProvider({ "exampledev:kubeconfig": file });
    const forbidden = await rejection(created("Proxy", declared("edge", {}, { metadata: { name: "edge" } })));
    expect(forbidden.message).toContain("403");
    expect(forbidden.message).toContain("header Bearer <redacted>");
    expect(forbidden.message).not.toContain(TOKEN);
    expect(JSON.stringify(forbidden)).not.toContain(TOKEN);

    // The native plugin shows the API's warnings in the engine's log: redacted there too.
    const api = createClient({ baseUrl: server.url, token: TOKEN });
    await api.proxies.create({ metadata: { name: "quoted" }, spec: {} });
    await api.close();
    const warnings: string[] = [];
    const native = new NativeProvider({ warn: async (_urn, text) => void warnings.push(text) });
    native.configure({}, { kubeconfig: file });
    // An import: state holds the id only, and the object is read by its name.
    await native.read("quoted", `urn:pulumi:dev::app::${NATIVE_TYPE_TOKENS.Proxy}::quoted`, {});
    expect(warnings.join("\n")).toContain("seen Bearer");
    expect(warnings.join("\n")).not.toContain(TOKEN);
  });

  it("refuses an exec user, naming the setting, the file, the context and the token to give instead", async () => {
    const file = kubeconfig(server.url, { exec: { command: "gke-gcloud-auth-plugin", args: [TOKEN] } });
    await configureProvider({ "exampledev:kubeconfig": file });
    const error = await rejection(created("Proxy", declared("edge", {})));
    expect(error.message).toContain(
      `exampledev:kubeconfig (or EXAMPLEDEV_KUBECONFIG): kubeconfig ${file}, context "local", user "deployer": exec credentials`,
    );
    expect(error.message).toContain(
      "give a bearer token instead with exampledev:token (or EXAMPLEDEV_TOKEN)",
    );
    expect(error.message).not.toContain(TOKEN);
  });

  it("the native plugin's CheckConfig refuses exampledev:context without a kubeconfig, up front", () => {
    const native = new NativeProvider();
    const { failures } = native.checkConfig({ baseUrl: server.url, context: "prod" });
    expect(failures.map(({ reason }) => reason)).toEqual([
      "exampledev:context (or EXAMPLEDEV_CONTEXT) chooses a kubeconfig context, but no kubeconfig is set: set exampledev:kubeconfig (or EXAMPLEDEV_KUBECONFIG) to the file's path",
    ]);
    expect(native.checkConfig({ kubeconfig: "/nowhere/config", context: "prod" }).failures).toEqual([]);
  });
});
