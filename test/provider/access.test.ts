// Issue 34, point 4: a preview asks the API whether it can be reached and takes the credentials, and every
// failure to reach it, or refusal of the credentials, names the setting that fixes it (config key, variable,
// kubeconfig context and user), at preview (check) and at up (create), on the dynamic resources and the
// native plugin, and never shows the token.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Config } from "@pulumi/pulumi/cmd/dynamic-provider/config";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import { resourceProvider } from "../../provider";
import { NativeProvider } from "../../provider/native/native-provider";
import { NATIVE_TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { declared, rejection, startLoopbackProxy } from "../helpers/provider";
import { startTestServer, type TestServer } from "../helpers/server";

const TOKEN = "access-test-token-3f81c2";
const WRONG = "access-test-wrong-token-9d07e4";

describe("access failures name the setting to fix", () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer({ logLevel: "warn", token: TOKEN });
    dir = mkdtempSync(path.join(tmpdir(), "exampledev-access-"));
  });
  beforeEach(() => {
    for (const name of ["BASE_URL", "TOKEN", "KUBECONFIG", "CONTEXT", "SERVER_DRY_RUN"])
      vi.stubEnv(`EXAMPLEDEV_${name}`, "");
  });
  afterEach(() => vi.unstubAllEnvs());
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A dynamic provider of Proxies in a new provider process, configured with `config` (no other default). */
  async function provider(config: Record<string, string>) {
    const proxies = resourceProvider("Proxy");
    await proxies.configure({ config: new Config(config, "access-tests") });
    return proxies;
  }
  const proxy = (name: string) => declared("edge", {}, { metadata: { name } });
  const reasonOf = async (config: Record<string, string>, name = "asked") =>
    (await (await provider(config)).check({}, proxy(name))).failures?.[0]?.reason ?? "";

  it("a wrong token in the stack config fails check, naming exampledev:token and EXAMPLEDEV_TOKEN, never the token", async () => {
    const reason = await reasonOf({ "exampledev:baseUrl": server.url, "exampledev:token": WRONG });
    expect(reason).toContain(`the API at ${server.url} did not accept the credentials (401 Unauthorized)`);
    expect(reason).toContain("the token comes from the stack config exampledev:token");
    expect(reason).toContain("pulumi config set --secret exampledev:token");
    expect(reason).toContain("EXAMPLEDEV_TOKEN");
    expect(reason).not.toContain(WRONG);
    // The setting first; what the server said (HTTP details) last, in parentheses.
    expect(reason.indexOf("exampledev:token")).toBeLessThan(reason.indexOf("(the API said: "));
    expect(server.store.get("Proxy", "asked")).toBeUndefined();
  });

  it("names the variable when the token, or the address, comes from the environment", async () => {
    vi.stubEnv("EXAMPLEDEV_TOKEN", WRONG);
    const token = await reasonOf({ "exampledev:baseUrl": server.url, "exampledev:token": TOKEN });
    expect(token).toContain(
      "the token comes from the environment variable EXAMPLEDEV_TOKEN, which wins over the stack config exampledev:token",
    );
    expect(token).not.toContain(WRONG);

    const closed = await startLoopbackProxy(server.url);
    await closed.close();
    vi.stubEnv("EXAMPLEDEV_BASE_URL", closed.url);
    const address = await reasonOf({ "exampledev:baseUrl": server.url, "exampledev:maxRetries": "0" });
    expect(address).toContain(`cannot reach the API at ${closed.url}`);
    expect(address).toContain("comes from the environment variable EXAMPLEDEV_BASE_URL");
  });

  it("no token at all: check says to give one", async () => {
    const reason = await reasonOf({ "exampledev:baseUrl": server.url });
    expect(reason).toContain("no token is set: give one with `pulumi config set --secret exampledev:token");
  });

  it("serverDryRun false: check asks nothing, and up's create names the token setting", async () => {
    const offline = await provider({
      "exampledev:baseUrl": server.url,
      "exampledev:token": WRONG,
      "exampledev:serverDryRun": "false",
    });
    const { failures, inputs } = await offline.check({}, proxy("written"));
    expect(failures).toEqual([]);
    const error = await rejection(offline.create(inputs as ReturnType<typeof proxy>));
    expect(error.message).toContain('Proxy "written": the API at');
    expect(error.message).toContain("did not accept the credentials (401 Unauthorized)");
    expect(error.message).toContain("exampledev:token");
    expect(error.message).not.toContain(WRONG);
  });

  describe("from a kubeconfig", () => {
    /** A kubeconfig with contexts `good` (current), `stale` (a wrong token) and `gone` (a closed port). */
    async function kubeconfig(): Promise<string> {
      const closed = await startLoopbackProxy(server.url);
      await closed.close();
      const file = path.join(dir, "config");
      writeFileSync(
        file,
        stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [
            { name: "local", cluster: { server: server.url } },
            { name: "nowhere", cluster: { server: closed.url } },
          ],
          users: [
            { name: "deployer", user: { token: TOKEN } },
            { name: "expired", user: { token: WRONG } },
          ],
          contexts: [
            { name: "good", context: { cluster: "local", user: "deployer" } },
            { name: "stale", context: { cluster: "local", user: "expired" } },
            { name: "gone", context: { cluster: "nowhere", user: "deployer" } },
          ],
          "current-context": "good",
        }),
      );
      return file;
    }

    it("a context the file lacks names exampledev:context", async () => {
      const file = await kubeconfig();
      const reason = await reasonOf({ "exampledev:kubeconfig": file, "exampledev:context": "prod" });
      expect(reason).toContain('no context named "prod" (it has "good", "stale", "gone")');
      expect(reason).toContain("choose one with exampledev:context (or EXAMPLEDEV_CONTEXT)");
    });

    it("a context whose user's token is refused names the user, the context and the token settings", async () => {
      const file = await kubeconfig();
      const reason = await reasonOf({ "exampledev:kubeconfig": file, "exampledev:context": "stale" });
      expect(reason).toContain('the credentials are those of user "expired" in the kubeconfig');
      expect(reason).toContain('context "stale" (chosen by exampledev:context)');
      expect(reason).toContain("exampledev:token (or EXAMPLEDEV_TOKEN)");
      expect(reason).not.toContain(WRONG);
    });

    it("a context whose cluster cannot be reached names the cluster, the context and exampledev:baseUrl", async () => {
      const file = await kubeconfig();
      const reason = await reasonOf({
        "exampledev:kubeconfig": file,
        "exampledev:context": "gone",
        "exampledev:maxRetries": "0",
      });
      expect(reason).toContain('is the server of cluster "nowhere" in the kubeconfig');
      expect(reason).toContain("exampledev:context (or EXAMPLEDEV_CONTEXT) chooses another");
      expect(reason).toContain("exampledev:baseUrl (or EXAMPLEDEV_BASE_URL)");
    });

    it("the right context passes, and its create is asked of the API", async () => {
      const file = await kubeconfig();
      expect(await reasonOf({ "exampledev:kubeconfig": file }, "by-kubeconfig")).toBe("");
      expect(server.store.get("Proxy", "by-kubeconfig")).toBeUndefined();
    });
  });

  it("the native plugin: the same messages in check and in create", async () => {
    const native = new NativeProvider();
    const urn = `urn:pulumi:dev::app::${NATIVE_TYPE_TOKENS.Proxy}::edge`;
    native.configure({ "exampledev:baseUrl": server.url }, { token: WRONG });
    const { failures } = await native.check(urn, {}, { metadata: { name: "native-asked" }, spec: {} });
    expect(failures[0]?.reason).toContain("did not accept the credentials (401 Unauthorized)");
    expect(failures[0]?.reason).toContain("exampledev:token");
    expect(failures[0]?.reason).not.toContain(WRONG);

    native.configure(
      { "exampledev:baseUrl": server.url, "exampledev:serverDryRun": "false" },
      { token: WRONG },
    );
    const checked = await native.check(urn, {}, { metadata: { name: "native-written" }, spec: {} });
    expect(checked.failures).toEqual([]);
    const error = await rejection(native.create(urn, checked.inputs, 0));
    expect(error.message).toContain("did not accept the credentials (401 Unauthorized)");
    expect(error.message).not.toContain(WRONG);
  });
});
