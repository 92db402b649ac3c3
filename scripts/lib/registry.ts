// Real OCI distribution registries (Debian's `docker-registry`, installed by scripts/setup-registry.sh)
// on loopback ports, and a client that pushes small artifacts through the distribution API. Used by the
// demo and, through test/helpers/registry.ts, by the tests.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hash } from "bcryptjs";
import { request } from "undici";

const REGISTRY_BIN = "/usr/bin/docker-registry";
const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
// Cost 5 keeps the registry's bcrypt check (it accepts nothing else) fast enough for tests.
const BCRYPT_COST = 5;

export type RegistryAuth =
  | { type: "none" }
  | { type: "htpasswd"; users: Readonly<Record<string, string>> }
  | { type: "token"; tokenServer: TokenAuthority };

/** The token service a token-mode registry trusts (test/helpers/token-server.ts provides one). */
export interface TokenAuthority {
  realm: string;
  service: string;
  issuer: string;
  /** PEM certificate whose key signs the tokens: the registry's `rootcertbundle`. */
  certificatePath: string;
}

export interface StartRegistryOptions {
  /** Default `{ type: "none" }`: an open registry. */
  auth?: RegistryAuth;
  /** Loopback port to listen on; default 0, a free port the registry picks itself. */
  port?: number;
}

export interface Registry {
  /** `127.0.0.1:<port>`, the registry part of a `repo`. */
  host: string;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `<host>/<path>`, the form a BundleRef's `repo` takes. */
  repo(path: string): string;
  stop(): Promise<void>;
}

/** Credentials for pushing: HTTP basic, or a bearer token (for a token-mode registry). */
export type PushAuth = { username: string; password: string } | { token: string };

export interface PushArtifactOptions {
  /** Repository path inside the registry, e.g. `team/app`. */
  path: string;
  tag: string;
  /** Bundle bytes; different content gives a different manifest digest. */
  content: string | Buffer;
  auth?: PushAuth;
}

const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const OCI_EMPTY_CONFIG = "application/vnd.oci.empty.v1+json";
const BUNDLE_LAYER = "application/vnd.exampledev.bundle.v1.tar";

async function htpasswdFile(users: Readonly<Record<string, string>>): Promise<string> {
  const lines = await Promise.all(
    Object.entries(users).map(async ([user, password]) => `${user}:${await hash(password, BCRYPT_COST)}`),
  );
  return `${lines.join("\n")}\n`;
}

async function authConfig(auth: RegistryAuth, dir: string): Promise<object | undefined> {
  switch (auth.type) {
    case "none":
      return undefined;
    case "htpasswd": {
      const path = join(dir, "htpasswd");
      await writeFile(path, await htpasswdFile(auth.users));
      return { htpasswd: { realm: "exampledev-test", path } };
    }
    case "token": {
      const { realm, service, issuer, certificatePath } = auth.tokenServer;
      return { token: { realm, service, issuer, rootcertbundle: certificatePath } };
    }
  }
}

function registryConfig(storage: string, auth: object | undefined, port: number): object {
  return {
    version: "0.1",
    // Level info for the "listening on <address>" line that tells the port.
    log: { level: "info", accesslog: { disabled: true } },
    storage: { filesystem: { rootdirectory: storage }, delete: { enabled: true } },
    // Port 0: the registry binds a free port itself, so no other process can take it in between.
    http: { addr: `127.0.0.1:${port}`, secret: randomBytes(16).toString("hex") },
    ...(auth ? { auth } : {}),
  };
}

function exited(child: ChildProcess): Promise<void> {
  // No pid: the spawn itself failed, and no exit event will come.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function stopProcess(child: ChildProcess): Promise<void> {
  const gone = exited(child);
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await gone;
  clearTimeout(timer);
}

/** The address the registry logs once it has bound its port; rejects when it exits or stays silent. */
function listeningHost(child: ChildProcess): Promise<string> {
  let log = "";
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`docker-registry did not start: ${why}: ${log}`));
    };
    const timer = setTimeout(
      () => fail(`no listening address within ${READY_TIMEOUT_MS} ms`),
      READY_TIMEOUT_MS,
    );
    child.once("exit", (code, signal) => fail(`it exited (${code ?? signal})`));
    child.once("error", (error) => fail(error.message));
    const stderr = child.stderr?.setEncoding("utf8");
    const onLog = (chunk: string) => {
      log = (log + chunk).slice(-4_000);
      const host = /msg="listening on (127\.0\.0\.1:\d+)"/.exec(log)?.[1];
      if (!host) return;
      clearTimeout(timer);
      // Later lines are not needed, but the pipe must keep draining or the registry blocks on it.
      stderr?.off("data", onLog).resume();
      resolve(host);
    };
    stderr?.on("data", onLog);
  });
}

/** Resolves once `/v2/` answers: 200, or 401 behind auth. */
async function waitUntilServing(url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      const response = await request(`${url}/v2/`, { signal: AbortSignal.timeout(1_000) });
      await response.body.dump();
      if (response.statusCode === 200 || response.statusCode === 401) return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`docker-registry does not answer on ${url}/v2/: ${error}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts `docker-registry` on a free 127.0.0.1 port, with filesystem storage in a temp dir. */
export async function startRegistry(options: StartRegistryOptions = {}): Promise<Registry> {
  if (!existsSync(REGISTRY_BIN)) {
    throw new Error(`${REGISTRY_BIN} is missing: run scripts/setup-registry.sh`);
  }
  const dir = await mkdtemp(join(tmpdir(), "exampledev-registry-"));
  let child: ChildProcess | undefined;
  const stop = async () => {
    if (child) await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const auth = await authConfig(options.auth ?? { type: "none" }, dir);
    const configPath = join(dir, "config.yml");
    // JSON is valid YAML, and the registry's YAML parser reads it.
    await writeFile(
      configPath,
      JSON.stringify(registryConfig(join(dir, "storage"), auth, options.port ?? 0), null, 2),
    );
    // An empty environment: the registry reads REGISTRY_* variables as config overrides.
    child = spawn(REGISTRY_BIN, ["serve", configPath], { env: {}, stdio: ["ignore", "ignore", "pipe"] });
    const host = await listeningHost(child);
    const url = `http://${host}`;
    await waitUntilServing(url);
    return { host, url, repo: (path) => `${host}/${path}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

const sha256Digest = (data: string | Buffer) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

function authorization(auth: PushAuth | undefined): Record<string, string> {
  if (!auth) return {};
  if ("token" in auth) return { authorization: `Bearer ${auth.token}` };
  return { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}` };
}

async function expectStatus(
  response: Awaited<ReturnType<typeof request>>,
  expected: number,
  what: string,
): Promise<void> {
  if (response.statusCode === expected) {
    await response.body.dump();
    return;
  }
  throw new Error(`${what}: HTTP ${response.statusCode}: ${await response.body.text()}`);
}

/** Monolithic upload: POST opens an upload session, PUT to its Location with `?digest=` completes it. */
async function pushBlob(registry: Registry, options: PushArtifactOptions, data: Buffer): Promise<string> {
  const digest = sha256Digest(data);
  const headers = authorization(options.auth);
  const opened = await request(`${registry.url}/v2/${options.path}/blobs/uploads/`, {
    method: "POST",
    headers,
  });
  const location = opened.headers.location;
  await expectStatus(opened, 202, `opening a blob upload in ${options.path}`);
  if (typeof location !== "string") throw new Error("the registry sent no upload Location");
  const uploadUrl = new URL(location, registry.url);
  uploadUrl.searchParams.set("digest", digest);
  const completed = await request(uploadUrl, {
    method: "PUT",
    headers: {
      ...headers,
      "content-type": "application/octet-stream",
      "content-length": String(data.length),
    },
    body: data,
  });
  await expectStatus(completed, 201, `uploading blob ${digest} to ${options.path}`);
  return digest;
}

/**
 * Pushes a one-layer OCI artifact (empty config + the content as layer) and tags its manifest.
 * Returns the manifest digest from `Docker-Content-Digest`.
 */
export async function pushArtifact(registry: Registry, options: PushArtifactOptions): Promise<string> {
  const config = Buffer.from("{}");
  const layer = Buffer.from(options.content);
  const [configDigest, layerDigest] = [
    await pushBlob(registry, options, config),
    await pushBlob(registry, options, layer),
  ];
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: { mediaType: OCI_EMPTY_CONFIG, digest: configDigest, size: config.length },
      layers: [{ mediaType: BUNDLE_LAYER, digest: layerDigest, size: layer.length }],
    }),
  );
  const response = await request(`${registry.url}/v2/${options.path}/manifests/${options.tag}`, {
    method: "PUT",
    headers: { ...authorization(options.auth), "content-type": OCI_MANIFEST },
    body: manifest,
  });
  const digest = response.headers["docker-content-digest"];
  await expectStatus(response, 201, `putting manifest ${options.path}:${options.tag}`);
  if (typeof digest !== "string") throw new Error("the registry sent no Docker-Content-Digest");
  return digest;
}
