import { Agent, request } from "undici";
import type { ClientOptions } from "../sdk/client";

/**
 * The few calls this project makes to a Kubernetes API server itself (installing CRDs and webhooks,
 * keeping Secrets), as one identity: a bearer token over TLS verified against the cluster's CA.
 */

export interface KubeReply {
  status: number;
  body: unknown;
}

export interface KubeClient {
  /** Any answer, failures included: the caller decides which codes it expects. */
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<KubeReply>;
  /** A 2xx answer's body; anything else throws with the Status message. */
  ok<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T>;
  /** Server-side apply of a whole object (idempotent), as `fieldManager`. */
  apply<T = Record<string, unknown>>(path: string, object: unknown): Promise<T>;
  close(): Promise<void>;
}

export const APPLY = "application/apply-patch+yaml";

export function kubeClient(url: string, token: string, caCert: string, fieldManager: string): KubeClient {
  return kubeClientOf({ baseUrl: url, token, ca: caCert }, fieldManager);
}

/**
 * The same client from a connection as `cli/connection.ts` reads it (a kubeconfig's token or client
 * certificate, or a pod's service account): how the webhook command finds its identity.
 */
export function kubeClientOf(
  connection: Pick<ClientOptions, "baseUrl" | "token" | "ca" | "cert" | "key" | "insecureSkipTlsVerify">,
  fieldManager: string,
): KubeClient {
  const { baseUrl, token, ca, cert, key, insecureSkipTlsVerify } = connection;
  const dispatcher = new Agent({
    connect: { ca, cert, key, ...(insecureSkipTlsVerify && { rejectUnauthorized: false }) },
  });
  const call = async (method: string, path: string, body?: unknown, contentType = "application/json") => {
    const answer = await request(`${baseUrl.replace(/\/$/, "")}${path}`, {
      method: method as "GET",
      dispatcher,
      headers: {
        ...(token !== undefined && { authorization: `Bearer ${token}` }),
        // kube-apiserver names the field manager of a write without one after its user agent.
        "user-agent": fieldManager,
        accept: "application/json",
        ...(body !== undefined && { "content-type": contentType }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await answer.body.text();
    return { status: answer.statusCode, body: text === "" ? undefined : parse(text) };
  };
  const ok = async <T>(method: string, path: string, body?: unknown, contentType?: string) => {
    const { status, body: answer } = await call(method, path, body, contentType);
    if (status >= 300) throw new Error(`${method} ${path}: ${status} ${describeFailure(answer)}`);
    return answer as T;
  };
  const separator = (path: string) => (path.includes("?") ? "&" : "?");
  return {
    call,
    ok,
    // JSON is YAML: an apply patch may be sent as JSON text.
    apply: (path, object) =>
      ok("PATCH", `${path}${separator(path)}fieldManager=${fieldManager}&force=true`, object, APPLY),
    close: () => dispatcher.close(),
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describeFailure(body: unknown): string {
  if (typeof body === "object" && body !== null && "message" in body) return String(body.message);
  return String(body).slice(0, 500);
}
