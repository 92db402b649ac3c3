// One HTTP exchange with a registry or token service: per-attempt timeout, retries of transient
// failures, and the whole body read (manifests and error documents are small).
import type { IncomingHttpHeaders } from "node:http";
import { request } from "undici";
import { CONDITION_REASONS } from "../../sdk/schema/status";
import { retryWait, withOverrides } from "../../sdk/shared/retry";
import { ResolutionFailure } from "./failure";
import { isTransientStatus, OCI_RETRY, type Sleep } from "./retry";

const { BundleResolutionFailed } = CONDITION_REASONS.Accepted;

export interface RequestContext {
  timeoutMs: number;
  /** Retries after the first attempt. */
  retries: number;
  signal: AbortSignal | undefined;
  sleep: Sleep;
}

export interface HttpRequest {
  url: URL;
  method: "GET" | "HEAD" | "POST" | "PUT";
  headers: Record<string, string>;
  /** A string (token-service forms) or bytes (blobs and manifests a build pushes). */
  body?: string | Buffer;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

// The OCI distribution spec lets registries refuse manifests above 4 MiB; nothing we read is larger.
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function describeTransportError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(describeTransportError).join("; ");
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (error.message !== "") return error.message;
    return typeof code === "string" ? code : error.name;
  }
  return String(error);
}

async function readBody(body: AsyncIterable<Buffer>, url: URL): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      throw new ResolutionFailure(
        BundleResolutionFailed,
        `${url.host} sent more than ${MAX_BODY_BYTES} bytes for ${url.pathname}`,
        false,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

type Attempt = { response: HttpResponse } | { transportError: string };

async function attempt(req: HttpRequest, context: RequestContext): Promise<Attempt> {
  const timeout = AbortSignal.timeout(context.timeoutMs);
  const signal = context.signal ? AbortSignal.any([context.signal, timeout]) : timeout;
  try {
    const response = await request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal,
    });
    const body = await readBody(response.body, req.url);
    return { response: { status: response.statusCode, headers: response.headers, body } };
  } catch (error) {
    if (context.signal?.aborted) throw context.signal.reason;
    if (error instanceof ResolutionFailure) throw error;
    if (timeout.aborted) return { transportError: `no answer within ${context.timeoutMs} ms` };
    return { transportError: describeTransportError(error) };
  }
}

/** Waits between attempts; an abort rejects with the signal's reason, as an abort during a request does. */
async function pause(ms: number, context: RequestContext): Promise<void> {
  try {
    await context.sleep(ms, context.signal);
  } catch (error) {
    context.signal?.throwIfAborted();
    throw error;
  }
}

/**
 * Sends a request, retrying connection errors, timeouts, 429 and 5xx with backoff. The last answer is
 * returned whatever its status; a server that never answered is a retryable failure.
 */
export async function send(req: HttpRequest, context: RequestContext): Promise<HttpResponse> {
  const policy = withOverrides(OCI_RETRY, { maxRetries: context.retries });
  for (let retry = 0; ; retry++) {
    const result = await attempt(req, context);
    // A server that never answered may answer next time; an answer only when its status says so.
    const answer = "response" in result ? result.response : undefined;
    const transient = answer === undefined || isTransientStatus(answer.status);
    const hint = answer && header(answer.headers, "retry-after");
    const wait = transient ? retryWait(retry, hint, policy) : undefined;
    if (wait !== undefined) {
      await pause(wait, context);
    } else if ("response" in result) {
      return result.response;
    } else {
      const attempts = retry + 1;
      throw new ResolutionFailure(
        BundleResolutionFailed,
        `${req.url.host} could not be reached (${attempts} attempt${attempts === 1 ? "" : "s"}): ${result.transportError}`,
        true,
      );
    }
  }
}
