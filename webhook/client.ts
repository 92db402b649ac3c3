import { createRawClient, type RawClient } from "../sdk/client/raw";
import type { ConnectionOptions } from "../sdk/client/transport";

/**
 * How the webhook calls kube-apiserver (its Secrets, the stored object of an update): `sdk/client`'s
 * transport, bounded so that a review still answers within the 10 s kube-apiserver gives the webhook
 * (deploy/identities.ts, timeoutSeconds): each attempt 3 s, one retry of what is safe to repeat, no riding
 * through a restart. A call that gets no answer fails the review (kube-apiserver then refuses the write,
 * failurePolicy Fail) and the sweep's round instead of holding them; an error answer throws the client's
 * typed error (`NotFoundError`, ...).
 */
export const WEBHOOK_REQUESTS = {
  /** kube-apiserver names the field manager of the webhook's writes after it. */
  userAgent: "exampledev-admission",
  timeoutMs: 3_000,
  maxRetries: 1,
  retry: { restartBudgetMs: 0 },
} as const;

/** The webhook's client for the identity `connection` names (its service account, or a kubeconfig's user). */
export function webhookClient(connection: ConnectionOptions): RawClient {
  return createRawClient({ ...connection, ...WEBHOOK_REQUESTS });
}
