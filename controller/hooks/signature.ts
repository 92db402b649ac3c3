// Whether a webhook delivery comes from the forge that knows the webhook secret (`--webhook-secret`): GitHub's
// `X-Hub-Signature-256` (HMAC-SHA256 of the raw body) or GitLab's `X-Gitlab-Token` (the secret itself).
// Checked on the raw bytes, before anything parses them, and compared in constant time.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

export type Verdict = { ok: true } | { ok: false; message: string };

const SIGNATURE_PREFIX = "sha256=";

export function verifyDelivery(headers: IncomingHttpHeaders, body: Buffer, secret: string): Verdict {
  const signature = headerValue(headers["x-hub-signature-256"]);
  if (signature !== undefined) {
    const expected = SIGNATURE_PREFIX + createHmac("sha256", secret).update(body).digest("hex");
    return sameText(signature, expected)
      ? { ok: true }
      : {
          ok: false,
          message:
            "X-Hub-Signature-256 does not match the body signed with the webhook secret; set the webhook's secret to the one in the --webhook-secret file",
        };
  }
  const token = headerValue(headers["x-gitlab-token"]);
  if (token !== undefined) {
    return sameText(token, secret)
      ? { ok: true }
      : {
          ok: false,
          message:
            "X-Gitlab-Token is not the webhook secret; set the webhook's secret token to the one in the --webhook-secret file",
        };
  }
  return {
    ok: false,
    message:
      "the delivery is not signed: only deliveries signed with the webhook secret are taken (X-Hub-Signature-256 or X-Gitlab-Token); set the webhook's secret",
  };
}

/** A header's value, the first when it was sent more than once. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Digests first, so lengths and contents take the same time whatever they are. */
function sameText(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
