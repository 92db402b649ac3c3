import { apiErrorFromResponse } from "../errors";
import type { HttpMethod, Transport } from "./transport";

/**
 * `coordination.k8s.io/v1` Leases, as a controller's replicas elect a leader with one (client-go's
 * leaderelection). Each call is one attempt bounded by the caller's signal: an election judges time itself
 * and retries on its own schedule, so the transport's retries would only blur it.
 */

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** RFC 3339 with microseconds (MicroTime). */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease {
  apiVersion: "coordination.k8s.io/v1";
  kind: "Lease";
  metadata: { name: string; namespace: string; resourceVersion?: string; [key: string]: unknown };
  spec: LeaseSpec;
}

export interface LeaseClient {
  /** The Lease, or undefined when there is none. */
  get(namespace: string, name: string, signal?: AbortSignal): Promise<Lease | undefined>;
  /** Throws `AlreadyExistsError` when another replica created it first. */
  create(lease: Lease, signal?: AbortSignal): Promise<Lease>;
  /** Needs `metadata.resourceVersion`; throws `ConflictError` when another replica wrote it since. */
  replace(lease: Lease, signal?: AbortSignal): Promise<Lease>;
}

export function leaseClient(transport: Transport, redact: readonly string[]): LeaseClient {
  const send = async (method: HttpMethod, lease: Lease["metadata"], body?: Lease, signal?: AbortSignal) => {
    const collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(lease.namespace)}/leases`;
    const response = await transport.send({
      method,
      path: method === "POST" ? collection : `${collection}/${encodeURIComponent(lease.name)}`,
      ...(body !== undefined && { body }),
      maxRetries: 0,
      ...(signal !== undefined && { signal }),
    });
    if (method === "GET" && response.statusCode === 404) return undefined;
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw apiErrorFromResponse(response.statusCode, response.body, {
        kind: "leases",
        name: lease.name,
        redact,
      });
    return response.body as Lease;
  };
  return {
    get: (namespace, name, signal) => send("GET", { namespace, name }, undefined, signal),
    create: async (lease, signal) => (await send("POST", lease.metadata, lease, signal)) as Lease,
    replace: async (lease, signal) => (await send("PUT", lease.metadata, lease, signal)) as Lease,
  };
}
