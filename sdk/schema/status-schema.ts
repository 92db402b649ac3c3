import { z } from "zod";

/**
 * A kind's `status` as the API declares it (the OpenAPI documents and the CRDs are generated from this): an
 * object whose fields the API keeps as written (`x-kubernetes-preserve-unknown-fields`). The shapes the
 * controller writes there are described in status.ts; the API checks only that it is an object, as a
 * Kubernetes API server checks a CRD's status against this schema.
 */
export const StatusSchema = z
  .record(z.string(), z.unknown())
  .describe(
    "The observed state, written by the server's controller through the status subresource (`/status`; conditions in the Kubernetes shape, observedGeneration). A write to the object itself ignores it.",
  );

/** Why `status` (as a request would store it) is not what `StatusSchema` takes; undefined when it is. */
export function statusProblem(status: unknown): string | undefined {
  if (status === undefined || status === null || StatusSchema.safeParse(status).success) return undefined;
  const type = Array.isArray(status) ? "an array" : `a ${typeof status}`;
  return `must be an object (the observed state, such as {"conditions": [...]}), not ${type}`;
}
