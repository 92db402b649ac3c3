import { z } from "zod";
import type { Status } from "../sdk/errors";
import { KIND_NAMES, type KindName } from "../sdk/schema";

/**
 * The `admission.k8s.io/v1` AdmissionReview kube-apiserver sends a webhook, as far as this webhook reads
 * it, and the answers it sends back.
 */

const API_VERSION = "admission.k8s.io/v1";
const object = z.record(z.string(), z.unknown());

const reviewSchema = z.object({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal("AdmissionReview"),
  request: z.object({
    uid: z.string(),
    kind: z.object({ group: z.string(), version: z.string(), kind: z.enum(KIND_NAMES as [KindName]) }),
    operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
    object: object.nullish(),
    oldObject: object.nullish(),
    dryRun: z.boolean().optional(),
  }),
});

export type AdmissionRequest = z.infer<typeof reviewSchema>["request"];

/** The request of a review, or an Error saying what is wrong with it. */
export function readReview(body: unknown): AdmissionRequest {
  const parsed = reviewSchema.safeParse(body);
  if (!parsed.success)
    throw new Error(`not an AdmissionReview this webhook serves: ${z.prettifyError(parsed.error)}`);
  return parsed.data.request;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: Status;
  patchType?: "JSONPatch";
  /** Base64 of a JSON Patch. */
  patch?: string;
  warnings?: string[];
}

export type JsonPatch = { op: "add" | "replace" | "remove"; path: string; value?: unknown }[];

export function allow(uid: string, patch: JsonPatch = [], warnings: string[] = []): AdmissionResponse {
  return {
    uid,
    allowed: true,
    ...(patch.length > 0 && {
      patchType: "JSONPatch",
      patch: Buffer.from(JSON.stringify(patch)).toString("base64"),
    }),
    ...(warnings.length > 0 && { warnings }),
  };
}

/** kube-apiserver answers the client with this Status (its message prefixed by the webhook's name). */
export function deny(uid: string, status: Status): AdmissionResponse {
  return { uid, allowed: false, status };
}

export function reviewOf(response: AdmissionResponse) {
  return { apiVersion: API_VERSION, kind: "AdmissionReview", response };
}
