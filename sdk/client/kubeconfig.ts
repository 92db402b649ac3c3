import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { ExampledevError } from "../errors/exampledev-error";
import { baseUrlProblem } from "./settings";

/**
 * A kubeconfig file read the way kubectl (client-go's clientcmd) reads it, for one context: its cluster's
 * server, certificate authority (`certificate-authority-data` over `certificate-authority`) and
 * `insecure-skip-tls-verify`; its user's bearer token (`token` over `tokenFile`) and client certificate and
 * key (`-data` over the file). Files named in it are resolved against the kubeconfig's directory, as kubectl
 * resolves them. Users that run a program for their credentials (`exec`, `auth-provider`) are refused with
 * what to give instead: running commands from a file is not something a Pulumi provider should do quietly.
 *
 * Messages name the file, the context and what is missing, and never repeat a token or a key.
 */

/** What a context of a kubeconfig gives a client: `ClientOptions` fields (see client.ts). */
export interface KubeconfigCredentials {
  /** The cluster's `server` as a URL (https when no scheme is given and TLS is configured, as kubectl does). */
  baseUrl?: string;
  /** PEM certificate(s) of the cluster's certificate authority. */
  ca?: string;
  /** `insecure-skip-tls-verify: true`: the server's certificate is not verified. */
  insecureSkipTlsVerify?: boolean;
  /** The user's bearer token. Secret. */
  token?: string;
  /** PEM client certificate, with `key`, for mutual TLS. */
  cert?: string;
  /** PEM private key of the client certificate. Secret. */
  key?: string;
}

/** Which context of a kubeconfig was read, with its cluster and user: names for messages, never secrets. */
export interface KubeconfigOrigin {
  file: string;
  context: string;
  cluster?: string;
  user?: string;
}

export interface KubeconfigOptions {
  /** The context to use; the file's `current-context` when absent. */
  context?: string;
  /**
   * Fields the caller has from elsewhere (explicit settings win field by field): they are not read, so a
   * missing CA file, or an exec user when a token is given, is no error.
   */
  given?: { baseUrl?: boolean; ca?: boolean; token?: boolean };
  /** How the caller names its token setting, for the advice on exec and auth-provider users. */
  tokenSetting?: string;
  /** How the caller names its context setting, for the advice when the file has no current-context. */
  contextSetting?: string;
  /** Told which context, cluster and user the credentials come from, for the caller's messages. */
  onOrigin?: (origin: KubeconfigOrigin) => void;
}

/** A kubeconfig that cannot be used: the message names the file, the context and what is wrong. */
export class KubeconfigError extends ExampledevError {}

const text = z.string({ error: "must be a string" }).optional();

const CLUSTER = {
  server: text,
  "certificate-authority": text,
  "certificate-authority-data": text,
  "insecure-skip-tls-verify": z.boolean({ error: "must be true or false" }).optional(),
  "tls-server-name": text,
  "proxy-url": text,
};

const USER = {
  token: text,
  tokenFile: text,
  "client-certificate": text,
  "client-certificate-data": text,
  "client-key": text,
  "client-key-data": text,
  username: text,
  password: text,
  exec: z.unknown().optional(),
  "auth-provider": z.unknown().optional(),
  as: text,
  "as-groups": z.unknown().optional(),
  "as-uid": text,
  "as-user-extra": z.unknown().optional(),
};

const NAME = z.string({ error: "needs a name" }).min(1, { error: "needs a name" });

const mapping = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.looseObject(shape, { error: "must be a mapping" });
const list = <Item extends z.ZodType>(item: Item) => z.array(item, { error: "must be a list" }).nullish();

const KUBECONFIG = mapping({
  kind: z.literal("Config", { error: 'must be "Config"' }).optional(),
  clusters: list(mapping({ name: NAME, cluster: mapping(CLUSTER).nullish() })),
  users: list(mapping({ name: NAME, user: mapping(USER).nullish() })),
  contexts: list(mapping({ name: NAME, context: mapping({ cluster: text, user: text }).nullish() })),
  "current-context": text,
});

type Kubeconfig = z.output<typeof KUBECONFIG>;
type Cluster = NonNullable<NonNullable<Kubeconfig["clusters"]>[number]["cluster"]>;
type User = NonNullable<NonNullable<Kubeconfig["users"]>[number]["user"]>;

/** Settings of a cluster this client does not implement, each with what to do instead. */
const UNSUPPORTED_CLUSTER: readonly [keyof Cluster, string][] = [
  ["tls-server-name", "give the server's address under a name its certificate holds"],
  ["proxy-url", "reach the server directly"],
];

/** `~/…` as a user may give the kubeconfig's own path, quoted so no shell expanded it. */
function expandHome(file: string): string {
  return file === "~" || file.startsWith("~/") ? path.join(homedir(), file.slice(1)) : file;
}

/** The credentials of one context of the kubeconfig at `file`. Throws `KubeconfigError`. */
export function readKubeconfig(file: string, options: KubeconfigOptions = {}): KubeconfigCredentials {
  const absolute = path.resolve(expandHome(file));
  const config = load(absolute);
  const contexts = config.contexts ?? [];
  const contextName = options.context ?? nonEmpty(config["current-context"]);
  if (contextName === undefined) {
    throw new KubeconfigError(
      `kubeconfig ${absolute}: no context chosen and no current-context: name one with ${options.contextSetting ?? "`context`"} (${names(contexts)})`,
    );
  }
  const context = contexts.find((entry) => entry.name === contextName);
  if (context === undefined) {
    const chosenBy =
      options.context !== undefined
        ? `choose one with ${options.contextSetting ?? "`context`"}`
        : `its current-context names none: choose one with ${options.contextSetting ?? "`context`"}`;
    throw new KubeconfigError(
      `kubeconfig ${absolute}: no context named "${contextName}" (${names(contexts)}); ${chosenBy}`,
    );
  }
  const reading: ContextReading = {
    context: new Reader(absolute, `context "${contextName}"`),
    config,
    given: options.given ?? {},
    tokenSetting: options.tokenSetting ?? "`token`",
  };
  const { cluster, user } = context.context ?? {};
  const credentials = {
    ...(reading.given.baseUrl && reading.given.ca ? {} : clusterCredentials(reading, cluster)),
    ...userCredentials(reading, user),
  };
  options.onOrigin?.({
    file: absolute,
    context: contextName,
    ...(cluster && { cluster }),
    ...(user && { user }),
  });
  return credentials;
}

/** Reads what the kubeconfig names, failing with the file and where in it (context, cluster, user). */
class Reader {
  constructor(
    readonly file: string,
    readonly where: string,
  ) {}

  /** A reader for a part of the context: its messages say which. */
  within(part: string): Reader {
    return new Reader(this.file, `${this.where}, ${part}`);
  }

  fail(problem: string): never {
    throw new KubeconfigError(`kubeconfig ${this.file}, ${this.where}: ${problem}`);
  }

  /** A file the kubeconfig names, relative to the kubeconfig's directory as kubectl resolves it. */
  readNamed(what: string, name: string): string {
    const resolved = path.resolve(path.dirname(this.file), name);
    try {
      return readFileSync(resolved, "utf8");
    } catch (error) {
      const code = (error as { code?: string }).code ?? String(error);
      return this.fail(`cannot read the ${what} file ${resolved} (${code})`);
    }
  }

  /** PEM from `<what>-data` (base64), else from the file `<what>`; the data wins, as for kubectl. */
  pem(what: string, data: string | undefined, file: string | undefined): string | undefined {
    const inline = nonEmpty(data);
    if (inline !== undefined) {
      const decoded = Buffer.from(inline, "base64").toString("utf8");
      if (!decoded.includes("-----BEGIN ")) this.fail(`${what}-data is not base64 of PEM`);
      return decoded;
    }
    const name = nonEmpty(file);
    return name === undefined ? undefined : this.readNamed(what, name);
  }
}

/** What reading a context's cluster or user needs beside its name. */
interface ContextReading {
  /** The context's reader: its messages name the file and the context. */
  context: Reader;
  config: Kubeconfig;
  /** What other settings give, which the kubeconfig then need not. */
  given: NonNullable<KubeconfigOptions["given"]>;
  /** How the advice names the token setting. */
  tokenSetting: string;
}

function clusterCredentials(
  { context, config, given, tokenSetting }: ContextReading,
  name: string | undefined,
): KubeconfigCredentials {
  if (nonEmpty(name) === undefined) context.fail("the context names no cluster");
  const clusters = config.clusters ?? [];
  const cluster = clusters.find((entry) => entry.name === name)?.cluster;
  if (cluster == null) return context.fail(`no cluster named "${name}" (${names(clusters)})`);
  const reader: Reader = context.within(`cluster "${name}"`);
  for (const [field, instead] of UNSUPPORTED_CLUSTER) {
    if (nonEmpty(cluster[field] as string | undefined) !== undefined) {
      reader.fail(`${field} is not supported by this client: ${instead}`);
    }
  }
  const insecure = cluster["insecure-skip-tls-verify"] === true;
  const hasCa =
    nonEmpty(cluster["certificate-authority-data"] ?? cluster["certificate-authority"]) !== undefined;
  const credentials: KubeconfigCredentials = {};
  if (!given.ca) {
    if (insecure && hasCa) {
      reader.fail(
        "insecure-skip-tls-verify and a certificate authority cannot both be set (as kubectl says)",
      );
    }
    const ca = reader.pem(
      "certificate-authority",
      cluster["certificate-authority-data"],
      cluster["certificate-authority"],
    );
    if (ca !== undefined) credentials.ca = ca;
    if (insecure) credentials.insecureSkipTlsVerify = true;
  }
  if (!given.baseUrl) {
    const server = nonEmpty(cluster.server);
    if (server === undefined) reader.fail("the cluster has no server");
    const url = serverUrl(server, insecure || hasCa);
    const problem = baseUrlProblem(url, tokenSetting);
    // The server is not repeated: it may carry credentials.
    if (problem !== undefined) reader.fail(`the cluster's server ${problem}`);
    credentials.baseUrl = url;
  }
  return credentials;
}

function userCredentials(
  { context, config, given, tokenSetting }: ContextReading,
  name: string | undefined,
): KubeconfigCredentials {
  // A context without a user is anonymous, as for kubectl; a token may come from elsewhere.
  if (nonEmpty(name) === undefined) return {};
  const users = config.users ?? [];
  const entry = users.find((candidate) => candidate.name === name);
  if (entry === undefined) return context.fail(`no user named "${name}" (${names(users)})`);
  const user: User = entry.user ?? {};
  const reader: Reader = context.within(`user "${name}"`);
  const instead = `give a bearer token instead with ${tokenSetting} (for example from \`kubectl create token <service account>\`), or use a user with token, tokenFile or a client certificate`;
  const credentials: KubeconfigCredentials = {};
  if (!given.token) {
    for (const field of ["exec", "auth-provider"] as const) {
      if (user[field] != null) {
        reader.fail(`${field} credentials (a program that fetches them) are not supported: ${instead}`);
      }
    }
    if (nonEmpty(user.username) !== undefined || nonEmpty(user.password) !== undefined) {
      reader.fail(`username and password (basic authentication) are not supported: ${instead}`);
    }
    const tokenFile = nonEmpty(user.tokenFile);
    const token =
      nonEmpty(user.token) ??
      (tokenFile === undefined ? undefined : reader.readNamed("tokenFile", tokenFile).trim());
    if (token === "") reader.fail("the tokenFile is empty");
    if (token !== undefined) credentials.token = token;
  }
  for (const field of ["as", "as-groups", "as-uid", "as-user-extra"] as const) {
    if (user[field] != null && user[field] !== "") {
      reader.fail(`impersonation (${field}) is not supported: use the user to impersonate directly`);
    }
  }
  const cert = reader.pem("client-certificate", user["client-certificate-data"], user["client-certificate"]);
  const key = reader.pem("client-key", user["client-key-data"], user["client-key"]);
  if (cert === undefined && key !== undefined) reader.fail("a client-key without a client-certificate");
  if (cert !== undefined && key === undefined) reader.fail("a client-certificate without a client-key");
  if (cert !== undefined && key !== undefined) {
    credentials.cert = cert;
    credentials.key = key;
  }
  return credentials;
}

function names(entries: readonly { name: string }[]): string {
  return entries.length === 0
    ? "it has none"
    : `it has ${entries.map((entry) => `"${entry.name}"`).join(", ")}`;
}

/** The parsed and checked file; its text never reaches a message (it may hold tokens and keys). */
function load(file: string): Kubeconfig {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    throw new KubeconfigError(`kubeconfig ${file}: cannot read it (${code})`);
  }
  // yaml loads with the first kubeconfig read, as undici with the first request: not for a preview.
  const { parse } = require("yaml") as typeof import("yaml");
  let document: unknown;
  try {
    document = parse(source);
  } catch (error) {
    // The yaml package's message quotes the offending line, which may be a token's.
    const { code, linePos } = error as { code?: string; linePos?: [{ line: number; col: number }] };
    const at = linePos ? ` at line ${linePos[0].line}, column ${linePos[0].col}` : "";
    throw new KubeconfigError(`kubeconfig ${file}: is not YAML (${code ?? "parse error"}${at})`);
  }
  if (document === null || typeof document !== "object" || Array.isArray(document)) {
    throw new KubeconfigError(
      `kubeconfig ${file}: is not a kubeconfig (a YAML mapping with clusters, users and contexts)`,
    );
  }
  const result = KUBECONFIG.safeParse(document);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `${issue.path.map(String).join(".")} ${issue.message}`);
    throw new KubeconfigError(`kubeconfig ${file}: ${issues.join("; ")}`);
  }
  return result.data;
}

/**
 * The server as a URL: a bare `host:port` gets https when TLS is configured and http otherwise, as
 * client-go's `DefaultServerURL` gives it.
 */
function serverUrl(server: string, tls: boolean): string {
  try {
    const url = new URL(server);
    if (url.host !== "") return server;
  } catch {
    // Not a URL: a host and port.
  }
  return `${tls ? "https" : "http"}://${server}`;
}

function nonEmpty(value: string | undefined | null): string | undefined {
  return value === "" || value === null ? undefined : value;
}
