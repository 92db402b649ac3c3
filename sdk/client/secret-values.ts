import { apiErrorFromResponse } from "../errors";
import { SECRETS_NAMESPACE, type SecretValues } from "../schema";
import type { Transport } from "./transport";

/**
 * The values of the Secret an object names (`SECRET_ANNOTATION`), read as a controller reads them: the
 * Secret in `SECRETS_NAMESPACE`, served by kube-apiserver or by the local server alike, decoded from base64.
 * Only a controller's identity may read it; the values never enter an error (the error is the Status's).
 */
export async function readSecretValues(
  transport: Transport,
  name: string,
  redact: readonly string[],
): Promise<SecretValues> {
  const path = `/api/v1/namespaces/${SECRETS_NAMESPACE}/secrets/${encodeURIComponent(name)}`;
  const response = await transport.send({ method: "GET", path });
  if (response.statusCode < 200 || response.statusCode >= 300) {
    throw apiErrorFromResponse(response.statusCode, response.body, { kind: "secrets", name, redact });
  }
  const data = (response.body as { data?: Record<string, string> }).data ?? {};
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [key, Buffer.from(value, "base64").toString("utf8")]),
  );
}
