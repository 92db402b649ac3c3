import type { SecretValues } from "../schema";
import { type LeaseClient, leaseClient } from "./leases";
import { resourceClient } from "./resource-client";
import { DEFAULT_RETRY, type RetryOptions } from "./retry";
import { readSecretValues } from "./secret-values";
import { baseUrlProblem, DEFAULT_TIMEOUT_MS } from "./settings";
import { realSleep, type Sleep, Transport } from "./transport";
import type { KindTypes, ResourceClient } from "./types";
import type { WarningHandler } from "./warnings";

export interface ClientOptions {
  /** `https://api.example.dev` or `http://127.0.0.1:8080`; a path prefix is kept. No credentials in it. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** PEM certificate of the authority that signed the server's certificate. */
  ca?: string | Buffer;
  /** PEM client certificate for mutual TLS (an API server that authenticates clients by certificate), with `key`. */
  cert?: string | Buffer;
  /** PEM private key of `cert`. Never sent, never in a message. */
  key?: string | Buffer;
  /** Do not verify the server's certificate (kubeconfig's `insecure-skip-tls-verify`): for test clusters only. */
  insecureSkipTlsVerify?: boolean;
  /** Deadline of one attempt, from connecting to the last byte of the answer. Default: `DEFAULT_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Retries after the first attempt (see `retryDelay` for which failures). Default: the `maxRetries` setting's. */
  maxRetries?: number;
  /** Backoff tuning, and the clock and jitter source for tests. */
  retry?: Partial<Omit<RetryOptions, "maxRetries">>;
  /** Replaces the real timer between retries and polls, for tests. */
  sleep?: Sleep;
  /**
   * Given each `Warning` (code 299) of every answer, as client-go's `WarningHandler` is: advisory rules an
   * object breaks, unknown fields the server dropped. Default: none (warnings are dropped). A call's own
   * `onWarning` (see `CallOptions`) is given them too, after this one.
   */
  onWarning?: WarningHandler;
}

type ClientOf<K extends keyof KindTypes> = ResourceClient<KindTypes[K]["object"], KindTypes[K]["input"]>;

export interface Client {
  proxies: ClientOf<"Proxy">;
  services: ClientOf<"Service">;
  serviceRevisions: ClientOf<"ServiceRevision">;
  /**
   * The secret values in the Secret `name` (an object's `SECRET_ANNOTATION`), keyed by field path: for a
   * controller's identity, which alone may read them.
   */
  secretValues(name: string): Promise<SecretValues>;
  /** `coordination.k8s.io` Leases: how a controller's replicas elect the one that acts. */
  leases: LeaseClient;
  /** Closes the connection pool once pending requests are done. */
  close(): Promise<void>;
}

/** A client for one API server: one keep-alive connection pool shared by the accessors of every kind. */
export function createClient(options: ClientOptions): Client {
  const sleep = options.sleep ?? realSleep;
  const transport = new Transport({
    baseUrl: checkedBaseUrl(options.baseUrl),
    ...(options.token !== undefined && { token: options.token }),
    ...(options.ca !== undefined && { ca: options.ca }),
    ...(options.cert !== undefined && { cert: options.cert }),
    ...(options.key !== undefined && { key: options.key }),
    ...(options.insecureSkipTlsVerify === true && { insecureSkipTlsVerify: true }),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: { ...DEFAULT_RETRY, ...options.retry, maxRetries: options.maxRetries ?? DEFAULT_RETRY.maxRetries },
    sleep,
  });
  const context = {
    transport,
    sleep,
    redact: options.token ? [options.token] : [],
    ...(options.onWarning !== undefined && { onWarning: options.onWarning }),
  };
  return {
    proxies: resourceClient("Proxy", context),
    services: resourceClient("Service", context),
    serviceRevisions: resourceClient("ServiceRevision", context),
    secretValues: (name) => readSecretValues(transport, name, context.redact),
    leases: leaseClient(transport, context.redact),
    close: () => transport.close(),
  };
}

/** The base URL, refused when it could leak into messages or would be ignored. */
function checkedBaseUrl(baseUrl: string): string {
  const problem = baseUrlProblem(baseUrl, "`token`");
  if (problem !== undefined) throw new TypeError(`baseUrl ${problem}`);
  return new URL(baseUrl).href;
}
