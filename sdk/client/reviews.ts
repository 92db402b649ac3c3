import type { Transport } from "./transport";

/**
 * Delegated authentication and authorization, as Kubernetes components protect their `/metrics`
 * (k8s.io/apiserver's delegating authenticator and authorizer): a TokenReview says who holds the bearer
 * token, a SubjectAccessReview whether that user may `get` the non-resource URL. The caller needs
 * `create` on both (the `system:auth-delegator` ClusterRole).
 */
export interface ReviewClient {
  /** Whether the token's holder may `verb` the non-resource `path`; false for a token no one holds. */
  allowedNonResource(token: string, path: string, verb: string): Promise<boolean>;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
}

export function reviewClient(transport: Transport): ReviewClient {
  const post = async (path: string, body: unknown) => {
    const response = await transport.send({ method: "POST", path, body, maxRetries: 0 });
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw new Error(`POST ${path} answered ${response.statusCode}: the controller needs create on it`);
    return response.body as { status?: Record<string, unknown> };
  };
  return {
    async allowedNonResource(token, path, verb) {
      const review = await post("/apis/authentication.k8s.io/v1/tokenreviews", {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenReview",
        spec: { token },
      });
      const status = review.status as TokenReviewStatus | undefined;
      if (!status?.authenticated || !status.user?.username) return false;
      const access = await post("/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: status.user.username,
          ...(status.user.uid && { uid: status.user.uid }),
          groups: status.user.groups ?? [],
          ...(status.user.extra && { extra: status.user.extra }),
          nonResourceAttributes: { path, verb },
        },
      });
      return access.status?.allowed === true;
    },
  };
}
