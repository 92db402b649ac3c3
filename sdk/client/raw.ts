import { apiErrorFromResponse } from "../errors";
import { type ClientOptions, redactedOf, transportOf } from "./client";
import type { HttpMethod } from "./transport";

/**
 * Requests to any path of a Kubernetes API (Secrets, CRDs, RBAC, TokenRequests), for what the typed
 * accessors do not cover: the admission webhook's Secrets, the development harness's installs. The same
 * transport as `createClient`'s (a deadline per attempt, retries of what is safe to repeat, a pool of
 * keep-alive connections) and the same errors. Internal: imported by path, not part of the package's API.
 */
export interface RawClient {
  /** Any answer, failures included: the caller decides which codes it expects. */
  call(method: HttpMethod, path: string, body?: unknown, contentType?: string): Promise<RawReply>;
  /** A 2xx answer's body; any other answer throws the `ApiError` of its Status (`NotFoundError`, ...). */
  ok<T = Record<string, unknown>>(
    method: HttpMethod,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T>;
  /** Server-side apply of a whole object (idempotent, so retried like a PUT), forced, as `fieldManager`. */
  apply<T = Record<string, unknown>>(path: string, object: unknown, fieldManager: string): Promise<T>;
  /** Closes the connection pool once pending requests are done. */
  close(): Promise<void>;
}

export interface RawReply {
  status: number;
  /** The parsed JSON answer; undefined when empty (or, for an error status, not JSON). */
  body: unknown;
}

export const APPLY_PATCH = "application/apply-patch+yaml";

export function createRawClient(options: ClientOptions): RawClient {
  const transport = transportOf(options);
  const redact = redactedOf(options);
  const call = async (method: HttpMethod, path: string, body?: unknown, contentType?: string) => {
    const response = await transport.send({
      method,
      path,
      ...(body !== undefined && { body }),
      ...(contentType !== undefined && { contentType }),
      ...(options.onWarning !== undefined && { onWarning: options.onWarning }),
    });
    return { status: response.statusCode, body: response.body };
  };
  const ok = async <T>(method: HttpMethod, path: string, body?: unknown, contentType?: string) => {
    const { status, body: answer } = await call(method, path, body, contentType);
    if (status < 200 || status >= 300) throw apiErrorFromResponse(status, answer, { redact });
    return answer as T;
  };
  return {
    call,
    ok,
    // JSON is YAML: an apply patch may be sent as JSON text.
    apply: (path, object, fieldManager) =>
      ok("PATCH", withQuery(path, { fieldManager, force: "true" }), object, APPLY_PATCH),
    close: () => transport.close(),
  };
}

function withQuery(path: string, query: Record<string, string>): string {
  return `${path}${path.includes("?") ? "&" : "?"}${new URLSearchParams(query)}`;
}
