import type { SecretValues } from "../schema";
import { type EventClient, eventClient } from "./events";
import { type LeaseClient, leaseClient } from "./leases";
import { resourceClient } from "./resource-client";
import { DEFAULT_RETRY, type RetryOptions } from "./retry";
import { type ReviewClient, reviewClient } from "./reviews";
import { readSecretValues } from "./secret-values";
import { baseUrlProblem, DEFAULT_TIMEOUT_MS } from "./settings";
import { type ConnectionOptions, realSleep, type Sleep, Transport } from "./transport";
import type { KindTypes, ResourceClient } from "./types";
import type { WarningHandler } from "./warnings";

export interface ClientOptions extends ConnectionOptions {
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
  /** `events.k8s.io/v1` Events: what a controller's events recorder writes. */
  events: EventClient;
  /** TokenReviews and SubjectAccessReviews: delegated authorization of a component's own endpoints. */
  reviews: ReviewClient;
  /** Closes the connection pool once pending requests are done. */
  close(): Promise<void>;
}

/** A client for one API server: one keep-alive connection pool shared by the accessors of every kind. */
export function createClient(options: ClientOptions): Client {
  const transport = transportOf(options);
  const context = {
    transport,
    sleep: options.sleep ?? realSleep,
    redact: redactedOf(options),
    ...(options.onWarning !== undefined && { onWarning: options.onWarning }),
  };
  return {
    proxies: resourceClient("Proxy", context),
    services: resourceClient("Service", context),
    serviceRevisions: resourceClient("ServiceRevision", context),
    secretValues: (name) => readSecretValues(transport, name, context.redact),
    leases: leaseClient(transport, context.redact),
    events: eventClient(transport, context.redact),
    reviews: reviewClient(transport),
    close: () => transport.close(),
  };
}

/** The transport `options` describe, with the defaults filled in: the deadline, the retry policy, the timer. */
export function transportOf(options: ClientOptions): Transport {
  const { baseUrl, timeoutMs, maxRetries, retry, sleep, onWarning: _handler, ...connection } = options;
  return new Transport({
    ...connection,
    baseUrl: checkedBaseUrl(baseUrl),
    timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: { ...DEFAULT_RETRY, ...retry, maxRetries: maxRetries ?? DEFAULT_RETRY.maxRetries },
    sleep: sleep ?? realSleep,
  });
}

/** What no error of this client may contain: its token. */
export function redactedOf(options: ClientOptions): string[] {
  return options.token ? [options.token] : [];
}

/** The base URL, refused when it could leak into messages or would be ignored. */
function checkedBaseUrl(baseUrl: string): string {
  const problem = baseUrlProblem(baseUrl, "`token`");
  if (problem !== undefined) throw new TypeError(`baseUrl ${problem}`);
  return new URL(baseUrl).href;
}
