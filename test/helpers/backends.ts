// The two servers the provider's e2e tests run against: the local server (the controller embedded), and
// kube-apiserver with the CRDs and the admission webhook (kube/api.ts) with the same controller running as
// a client of it, in this process. A test sees one shape: the provider's settings and an admin client.
import { Agent, type Dispatcher, Pool } from "undici";
import { expect, vi } from "vitest";
import { clusterOf, startController } from "../../controller";
import { startKubeApi } from "../../kube/api";
import { type Client, createClient } from "../../sdk/client";
import { KIND_NAMES, PROXY_DRAIN_FINALIZER } from "../../sdk/schema";
import { DEFAULT_PROXY_DELETION_GRACE_MS, type ServerOptions, startServer } from "../../server";

export const BACKENDS = ["local", "kube"] as const;
export type BackendName = (typeof BACKENDS)[number];

export interface Backend {
  name: BackendName;
  /** The provider's settings that reach this server (`exampledev:baseUrl` or `exampledev:kubeconfig`). */
  config: Record<string, { value: string }>;
  /** A client with every right, for the test's own reads and out-of-band writes. */
  client: Client;
  /**
   * Where a test's loopback proxy forwards to, and the provider's settings that reach this server through
   * such a proxy at `proxyUrl` (plain HTTP on loopback, the admin's token).
   */
  upstream: { url: string; dispatcher?: Dispatcher };
  configThrough(proxyUrl: string): Record<string, { value: string; secret?: boolean }>;
  /**
   * Stops the Service controller until `resumeController` starts it again: what a client sees while no
   * controller runs (its Deployment scaled to zero, a leader being elected).
   */
  pauseController(): Promise<void>;
  resumeController(): void;
  /** A raw request with that client's rights (what another tool, kubectl say, sends). */
  call(method: "GET" | "PATCH", path: string, body?: string, contentType?: string): Promise<RawReply>;
  close(): Promise<void>;
}

export interface RawReply {
  status: number;
  text: string;
}

/**
 * Resolves once the controller has written the readiness of every Proxy's generation, which it does right
 * after a create or anyone's change: a step checked for writing nothing must not be charged with that write.
 */
export async function proxiesObserved(client: Client): Promise<void> {
  await vi.waitFor(
    async () => {
      const unobserved = (await client.proxies.listAll()).filter(
        ({ metadata, status }) =>
          (metadata.finalizers ?? []).includes(PROXY_DRAIN_FINALIZER) &&
          metadata.deletionTimestamp === undefined &&
          status?.observedGeneration !== metadata.generation,
      );
      expect(unobserved.map(({ metadata }) => metadata.name)).toEqual([]);
    },
    { timeout: 30_000, interval: 100 },
  );
}

/**
 * Every stored object of the three kinds as `kind/name@resourceVersion`: equal before and after a step that
 * must write nothing, on either server (kube-apiserver's list version moves with writes of any resource).
 * A caller whose step follows a change of a Proxy waits for `proxiesObserved` first.
 */
export async function storedVersions(client: Client): Promise<string[]> {
  const lists = await Promise.all([
    client.proxies.listAll(),
    client.services.listAll(),
    client.serviceRevisions.listAll(),
  ]);
  return lists.flatMap((items, index) =>
    items.map(({ metadata }) => `${KIND_NAMES[index]}/${metadata.name}@${metadata.resourceVersion}`),
  );
}

/** `call` over a pool of its own, with the bearer token and CA a client of `baseUrl` would use. */
function rawCaller(baseUrl: string, token?: string, ca?: string) {
  const pool = new Pool(new URL(baseUrl).origin, { ...(ca !== undefined && { connect: { ca } }) });
  const call: Backend["call"] = async (method, path, body, contentType) => {
    const answer = await pool.request({
      method,
      path,
      headers: {
        ...(token !== undefined && { authorization: `Bearer ${token}` }),
        ...(contentType !== undefined && { "content-type": contentType }),
      },
      ...(body !== undefined && { body }),
    });
    return { status: answer.statusCode, text: await answer.body.text() };
  };
  return { call, close: () => pool.close() };
}

export async function startBackend(name: BackendName, local: Partial<ServerOptions> = {}): Promise<Backend> {
  if (name === "local") {
    const server = await startServer({ port: 0, storage: "memory", logLevel: "warn", ...local });
    const client = createClient({ baseUrl: server.url });
    const raw = rawCaller(server.url);
    return {
      name,
      config: { "exampledev:baseUrl": { value: server.url } },
      upstream: { url: server.url },
      configThrough: (proxyUrl) => ({ "exampledev:baseUrl": { value: proxyUrl } }),
      client,
      pauseController: () => server.pauseController(),
      resumeController: () => server.resumeController(),
      call: raw.call,
      async close() {
        await Promise.all([client.close(), raw.close()]);
        await server.close();
      },
    };
  }
  const api = await startKubeApi();
  const connection = { baseUrl: api.url, token: api.token, ca: api.caCert };
  const controllerClient = createClient(connection);
  const launch = () =>
    startController({
      cluster: clusterOf(controllerClient),
      gateways: ["default"],
      proxyDeletionGraceMs: local.proxyDeletionGraceMs ?? DEFAULT_PROXY_DELETION_GRACE_MS,
      ...(local.workers !== undefined && { workers: local.workers }),
      ...(local.git !== undefined && { git: local.git }),
    });
  let controller = launch();
  const client = createClient(connection);
  const raw = rawCaller(api.url, api.token, api.caCert);
  const dispatcher = new Agent({ connect: { ca: api.caCert } });
  return {
    name,
    config: { "exampledev:kubeconfig": { value: api.kubeconfig } },
    upstream: { url: api.url, dispatcher },
    configThrough: (proxyUrl) => ({
      "exampledev:baseUrl": { value: proxyUrl },
      "exampledev:token": { value: api.token, secret: true },
    }),
    client,
    pauseController: () => controller.stop(),
    resumeController: () => {
      controller = launch();
    },
    call: raw.call,
    async close() {
      await controller.stop();
      // destroy, not close: a proxied watch may still be open upstream, and close would wait for its end.
      await Promise.all([controllerClient.close(), client.close(), raw.close(), dispatcher.destroy()]);
      await api.close();
    },
  };
}
