import "../sdk/shared/node-version"; // first: fails on a Node older than the package needs, before anything loads
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { LogLevel } from "fastify";
import { Registry } from "prom-client";
import {
  type Controller,
  CredentialsFile,
  clusterOf,
  type GitOptions,
  type LastWrites,
  startController,
} from "../controller";
import { DEFAULT_PROXY_DELETION_GRACE_MS } from "../controller/flags";
import { createClient } from "../sdk/client";
import { type AppOptions, buildApp, type LogDestination } from "./app";
import { inProcessEvents } from "./events/in-process";
import { EventStore } from "./events/store";
import { errorFields } from "./http/request-log";
import { startLifecycle } from "./lifecycle";
import { type ObjectStore, openStore, type StorageOption } from "./storage";

export {
  type AppOptions,
  app,
  type BuildAppOptions,
  buildApp,
  type LogDestination,
} from "./app";
export { DEFAULT_MAX_OBJECT_BYTES } from "./resources/object-size";
export type { ObjectMeta, ObjectStore, OwnerReference, StorageOption, WatchEvent } from "./storage";

export { DEFAULT_PROXY_DELETION_GRACE_MS };

export interface ServerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /** Defaults to 127.0.0.1: the server is for one machine unless told otherwise. */
  host?: string;
  storage: StorageOption;
  /** When set, every request but /healthz needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Serve HTTPS with this PEM certificate and key (server/tls.ts: from files, or self-signed). */
  tls?: { cert: string; key: string };
  /** Egress gateway names the controller treats as existing; default `["default"]`. */
  egressGateways?: readonly string[];
  logLevel?: LogLevel;
  logStream?: LogDestination;
  /**
   * How long a deleted Proxy drains, marked with its deletionTimestamp, before the controller takes its
   * finalizer off; default 1 s.
   */
  proxyDeletionGraceMs?: number;
  /**
   * Whether the controller drains Proxies (keeps its finalizer on each); default true. Off, the server is
   * what kube-apiserver is without the controller: a Proxy without finalizers goes at once.
   */
  drainProxies?: boolean;
  /**
   * Watch tuning: `historySize` and `historyRetentionMs` (store events a watch can resume from, default the
   * last 10,000 of the last 75 s; older versions are 410 Expired), `bookmarkIntervalMs` (default 60 s), the bounds of a client that falls behind
   * (`maxBufferedBytes`, `maxBufferedEvents`, `slowClientGraceMs`), `maxWatches`, `defaultTimeoutMs`.
   */
  watch?: AppOptions["watch"];
  /**
   * A commit of the durable store failed for another reason than space: writes the server already showed
   * are not on disk, and no further write is accepted. Default: log it and exit the process with code 1
   * (fail-stop), so that no client is told a write succeeded that a restart would lose. Tests pass their own.
   * A commit that finds no space (a full disk, `storage.maxBytes` reached) stops nothing: its writes are
   * undone, and writes are refused (500, "database space exceeded") until space returns, reads go on.
   */
  onStorageFailure?: (error: Error) => void;
  /**
   * A YAML or JSON file of registry credentials that `credentialsRef`s name (`--credentials`): read at
   * start (an unusable file fails the start) and again whenever it changes.
   */
  credentialsFile?: string;
  /**
   * The webhook secret (`--webhook-secret <file>` holds it): `POST /hooks/git` then takes only deliveries
   * signed with it (GitHub's X-Hub-Signature-256, GitLab's X-Gitlab-Token), without the API token.
   */
  webhookSecret?: string;
  /** How often tags of OCI sources without a digest are resolved again; 0 turns it off. Default 30 s. */
  tagPollIntervalMs?: number;
  /** Services the controller syncs at once (`--controller-workers`); default the controller's. */
  workers?: number;
  /**
   * Git sources: `allow` (URL prefixes, default local paths and loopback hosts), `pollIntervalMs`
   * (default 30 s, 0 off), `buildCommands` (default off), `buildTimeoutMs` (default 10 min),
   * `maxCloneBytes` (default 1 GiB). Mirrors live in `<data dir>/git`, or a temp dir for memory storage.
   */
  git?: Omit<GitOptions, "dir" | "credentials">;
  /**
   * The largest object a write may store, in bytes of JSON (`--max-object-size`; default 1.5 MiB, etcd's
   * default). Creates, replaces, patches and applies, dry run or not, over it are 413; request bodies over
   * twice it are refused before they are read.
   */
  maxObjectBytes?: number;
}

export interface RunningServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  store: ObjectStore;
  /** Resolves when the controller has no work left (tests wait for it before reading status). */
  idle(): Promise<void>;
  /** Stops accepting requests, finishes those in flight, stops the controller, closes the store. */
  close(): Promise<void>;
  /**
   * Stops the embedded controller until `resumeController` starts it again (tests: what a client sees while no
   * controller runs, as when its Deployment is scaled to zero on a cluster).
   */
  pauseController(): Promise<void>;
  resumeController(): void;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const store = openStore(
    options.storage,
    (error) => app.log.error({ error: errorFields(error) }, "a store listener failed"),
    {
      onCommitFailure:
        options.onStorageFailure ??
        ((error) => {
          app.log.fatal({ error: errorFields(error) }, "a commit to the data directory failed: stopping");
          console.error(`a commit to the data directory failed, stopping the server: ${error.message}`);
          process.exit(1);
        }),
      onSpace: (refused) => {
        if (refused) app.log.error({ error: errorFields(refused) }, "writes refused: no space for the store");
        else app.log.warn("writes taken again: the store has space");
      },
    },
  );
  // The controller's identity: random per start, never leaves this process.
  const controllerToken = randomBytes(32).toString("base64url");
  // One registry for the server and its embedded controller: `/metrics` shows both.
  const metrics = new Registry();
  // Events: served by the app, written by the embedded controller directly (events/in-process.ts).
  const events = new EventStore();
  const app = buildApp({
    metrics,
    events,
    store,
    token: options.token,
    controllerToken,
    watch: options.watch,
    logLevel: options.logLevel,
    logStream: options.logStream,
    ...(options.tls && { tls: options.tls }),
    ...(options.maxObjectBytes !== undefined && { maxObjectBytes: options.maxObjectBytes }),
    drainProxies: options.drainProxies !== false,
    // The controller starts once the server listens: a delivery before that matches no Service.
    gitHooks: { receive: (event) => controller?.git.receive(event) ?? { matched: [] } },
    ...(options.webhookSecret !== undefined && { webhookSecret: options.webhookSecret }),
  });
  const refused = store.spaceExhausted();
  if (refused)
    app.log.error({ error: errorFields(refused) }, "starting read-only: no space for the store's writes");
  let credentials: CredentialsFile | undefined;
  try {
    credentials =
      options.credentialsFile === undefined
        ? undefined
        : CredentialsFile.open(options.credentialsFile, app.log.child({ component: "credentials" }));
  } catch (error) {
    await app.close();
    store.close();
    throw error;
  }
  const lifecycle = startLifecycle(store, (error) =>
    app.log.warn(
      { error: errorFields(error) },
      "the garbage collector's start-up pass failed; it runs again",
    ),
  );
  let controller: Controller | undefined;
  const stopBackground = async () => {
    credentials?.close();
    lifecycle.stop();
    store.close();
  };

  try {
    await app.listen({ port: options.port, host });
  } catch (error) {
    await app.close();
    await stopBackground();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  const scheme = options.tls ? "https" : "http";
  const url = urlOf(host, port, scheme);
  // The controller is a client like any other, over loopback to this server, as its own identity. Over TLS
  // it does not verify the certificate it is served: it reaches its own listener on loopback (a user's
  // certificate need not name the loopback address), with a token that never leaves the process.
  const client = createClient({
    baseUrl: loopbackUrl(host, port, scheme),
    token: controllerToken,
    ...(options.tls && { insecureSkipTlsVerify: true }),
  });
  // A function: each start of the controller needs caches (a cluster) of its own.
  const controllerOptions = (): Parameters<typeof startController>[0] => ({
    cluster: {
      ...clusterOf(client, {
        onError: (error) =>
          app.log.warn({ error: errorFields(error) }, "the controller's watch failed; retrying"),
      }),
      events: inProcessEvents(events),
    },
    gateways: options.egressGateways ?? ["default"],
    log: app.log.child({ component: "controller" }),
    metrics,
    ...(credentials && { credentials }),
    ...(options.tagPollIntervalMs !== undefined && { tagPollIntervalMs: options.tagPollIntervalMs }),
    ...(options.workers !== undefined && { workers: options.workers }),
    ...(options.drainProxies !== false && {
      proxyDeletionGraceMs: options.proxyDeletionGraceMs ?? DEFAULT_PROXY_DELETION_GRACE_MS,
    }),
    git: {
      ...options.git,
      ...(typeof options.storage === "object" && { dir: join(options.storage.dir, "git") }),
    },
  });
  const launch = () => startController(controllerOptions());
  let running = launch();
  controller = running;
  const lastWrites = lastWritesOf(store);
  let closing: Promise<void> | undefined;
  return {
    url,
    store,
    async idle() {
      // The controller hears of writes through its watches: idle once it has seen every write made so far
      // and synced what they queued, its own writes' events included.
      for (;;) {
        const versions = { ...lastWrites };
        await running.reached(versions);
        await running.idle();
        if (isDeepStrictEqual(versions, lastWrites)) return;
      }
    },
    pauseController: () => running.stop(),
    resumeController: () => {
      running = launch();
      controller = running;
    },
    close: () => {
      // The controller first: its watches are connections the server would wait for.
      closing ??= running
        .stop()
        .then(() => client.close())
        .then(() => app.close())
        .then(stopBackground);
      return closing;
    },
  };
}

/** The address the server's own controller reaches it at: a wildcard host is reached on loopback. */
function loopbackUrl(host: string, port: number, scheme: string): string {
  if (host === "0.0.0.0" || host === "") return urlOf("127.0.0.1", port, scheme);
  return urlOf(host === "::" ? "::1" : host, port, scheme);
}

function urlOf(host: string, port: number, scheme = "http"): string {
  return `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The resourceVersion of the last write of each kind the controller watches. */
function lastWritesOf(store: ObjectStore): LastWrites {
  const versions: LastWrites = {};
  const cacheOf: Partial<Record<string, keyof LastWrites>> = {
    Service: "services",
    ServiceRevision: "revisions",
    Proxy: "proxies",
  };
  store.subscribe((event) => {
    const cache = cacheOf[event.kind];
    if (cache !== undefined) versions[cache] = event.object.metadata.resourceVersion;
  });
  // Writes undone for lack of space never reach the controller: no waiting for them.
  store.subscribeResets((version) => {
    for (const [cache, last] of Object.entries(versions))
      if (Number(last) > version) versions[cache as keyof LastWrites] = String(version);
  });
  return versions;
}
