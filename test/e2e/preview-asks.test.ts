// Issue 34, point 4, through the real CLI on both backends: a preview asks the API (serverDryRun is on by
// default once an address is set) and writes nothing; a wrong token, an unreachable address or a wrong
// kubeconfig context fails the preview with a message naming the setting to fix, and never the token.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { Client } from "../../sdk/client";
import { PROXY_DRAIN_FINALIZER } from "../../sdk/schema";
import { startServer } from "../../server";
import { BACKENDS, type Backend, proxiesObserved, startBackend, storedVersions } from "../helpers/backends";
import { startLoopbackProxy } from "../helpers/provider";
import { createTestStack, type TestStack } from "../helpers/pulumi";

const fixture = path.join(__dirname, "fixtures/proxy");
const API_KEY = "asks-api-key-e2e-51d0";
const WRONG = "asks-wrong-token-e2e-8c3f1a";
const drained = (proxy: { metadata: { finalizers?: string[] } }) =>
  proxy.metadata.finalizers?.includes(PROXY_DRAIN_FINALIZER) === true;

describe.each(BACKENDS)("the preview asks the API, on the %s server", (backendName) => {
  let backend: Backend;
  let client: Client;
  let t: TestStack;
  let closedUrl: string;
  let base: Record<string, { value: string; secret?: boolean }>;
  const printed: string[] = [];
  const onOutput = (line: string) => printed.push(line);

  beforeAll(async () => {
    backend = await startBackend(backendName);
    client = backend.client;
    const closed = await startLoopbackProxy(backend.upstream.url);
    closedUrl = closed.url;
    await closed.close();
    t = await createTestStack(fixture);
    base = {
      ...backend.config,
      name: { value: "asked-edge" },
      apiKey: { value: API_KEY, secret: true },
      "exampledev:maxRetries": { value: "0" },
    };
    await t.stack.setAllConfig(base);
  });
  afterAll(async () => {
    await t?.dispose();
    await backend?.close();
  });

  const failure = (run: Promise<unknown>) =>
    run.then(
      () => {
        throw new Error("expected the command to fail");
      },
      (error: Error) => String(error),
    );
  /**
   * Runs `step` with `config` set, then puts the stack's settings back as `base` has them: the keys `base`
   * sets get its values again, the others are removed (a CLI run each only where there is one to do: each
   * costs a Pulumi CLI process, with its passphrase's key derivation).
   */
  async function withConfig<T>(
    config: Record<string, { value: string; secret?: boolean }>,
    step: () => Promise<T>,
  ) {
    await t.stack.setAllConfig(config);
    try {
      return await step();
    } finally {
      const added = Object.keys(config).filter((key) => !(key in base));
      const restored = Object.fromEntries(Object.entries(base).filter(([key]) => key in config));
      if (added.length > 0) await t.stack.removeAllConfig(added);
      if (Object.keys(restored).length > 0) await t.stack.setAllConfig(restored);
    }
  }

  it("previews a create and an update by asking the API, and writes nothing", async () => {
    await proxiesObserved(client);
    let versions = await storedVersions(client);
    const create = await t.stack.preview({ onOutput });
    expect(create.changeSummary).toMatchObject({ create: 2 }); // the stack and the Proxy
    expect(await storedVersions(client)).toEqual(versions);
    expect((await t.stack.up({ onOutput })).summary.result).toBe("succeeded");

    // Asked by default: a name another object holds fails the preview of the replacement's create.
    await client.proxies.create({ metadata: { name: "held-elsewhere" }, spec: {} });
    // The controller's own write (its drain finalizer on each Proxy) done first: only the preview's would count.
    await expect
      .poll(async () => (await client.proxies.listAll()).every(drained), { timeout: 30_000, interval: 100 })
      .toBe(true);
    await proxiesObserved(client);
    versions = await storedVersions(client);
    const taken = await withConfig({ name: { value: "held-elsewhere" } }, () =>
      failure(t.stack.preview({ onOutput })),
    );
    expect(taken).toContain('Proxy "held-elsewhere" already exists on the server');
    expect(await storedVersions(client)).toEqual(versions);

    const update = await withConfig({ drainTimeout: { value: "12s" } }, () => t.stack.preview({ onOutput }));
    expect(update.changeSummary).toMatchObject({ update: 1 });
    expect(await storedVersions(client)).toEqual(versions);
  });

  it("fails the preview naming exampledev:baseUrl when the address cannot be reached", async () => {
    const message = await withConfig({ "exampledev:baseUrl": { value: closedUrl } }, () =>
      failure(t.stack.preview({ onOutput })),
    );
    expect(message).toContain(`cannot reach the API at ${closedUrl}`);
    expect(message).toContain("the stack config exampledev:baseUrl");
    expect(message).toContain("EXAMPLEDEV_BASE_URL");

    // exampledev:serverDryRun false keeps a preview offline: the same settings pass.
    const offline = await withConfig(
      { "exampledev:baseUrl": { value: closedUrl }, "exampledev:serverDryRun": { value: "false" } },
      () => t.stack.preview({ onOutput }),
    );
    expect(Object.keys(offline.changeSummary)).toEqual(["same"]);
  });

  it("fails the preview naming exampledev:token when the API refuses the token, never showing it", async () => {
    if (backendName === "local") {
      // The local backend takes any request: a second server that wants a token.
      const guarded = await startServer({ port: 0, storage: "memory", logLevel: "warn", token: "right" });
      try {
        const message = await withConfig(
          {
            "exampledev:baseUrl": { value: guarded.url },
            "exampledev:token": { value: WRONG, secret: true },
          },
          () => failure(t.stack.preview({ onOutput })),
        );
        expect(message).toContain(
          `the API at ${guarded.url} did not accept the credentials (401 Unauthorized)`,
        );
        expect(message).toContain("the token comes from the stack config exampledev:token");
        expect(message).not.toContain(WRONG);
      } finally {
        await guarded.close();
      }
      return;
    }
    const message = await withConfig({ "exampledev:token": { value: WRONG, secret: true } }, () =>
      failure(t.stack.preview({ onOutput })),
    );
    expect(message).toContain("did not accept the credentials (401 Unauthorized)");
    expect(message).toContain("the token comes from the stack config exampledev:token");
    expect(message).not.toContain(WRONG);
    expect(printed.join("\n")).not.toContain(WRONG);
  });

  it.runIf(backendName === "kube")(
    "fails the preview naming exampledev:context for a context the kubeconfig lacks, or one whose user is refused",
    async () => {
      const file = backend.config["exampledev:kubeconfig"]?.value as string;
      const missing = await withConfig({ "exampledev:context": { value: "production" } }, () =>
        failure(t.stack.preview({ onOutput })),
      );
      expect(missing).toContain('no context named "production"');
      expect(missing).toContain("choose one with exampledev:context (or EXAMPLEDEV_CONTEXT)");

      // A second context in a copy of the file, beside it: the same cluster, a user with a wrong token.
      const config = parse(readFileSync(file, "utf8"));
      const [cluster] = config.clusters;
      config.users.push({ name: "expired", user: { token: WRONG } });
      config.contexts.push({ name: "stale", context: { cluster: cluster.name, user: "expired" } });
      const copy = path.join(path.dirname(file), "two-contexts.kubeconfig");
      writeFileSync(copy, stringify(config));
      const refused = await withConfig(
        { "exampledev:kubeconfig": { value: copy }, "exampledev:context": { value: "stale" } },
        () => failure(t.stack.preview({ onOutput })),
      );
      expect(refused).toContain("did not accept the credentials (401 Unauthorized)");
      expect(refused).toContain('the credentials are those of user "expired"');
      expect(refused).toContain('context "stale" (chosen by exampledev:context)');
      expect(refused).not.toContain(WRONG);
    },
  );

  it("names the setting at up too (serverDryRun false: nothing asked before the write)", async () => {
    const message = await withConfig(
      {
        "exampledev:baseUrl": { value: closedUrl },
        "exampledev:serverDryRun": { value: "false" },
        drainTimeout: { value: "14s" },
      },
      () => failure(t.stack.up({ onOutput })),
    );
    expect(message).toContain(`cannot reach the API at ${closedUrl}`);
    expect(message).toContain("exampledev:baseUrl");
  });
});
