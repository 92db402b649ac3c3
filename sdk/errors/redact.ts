/** What a secret is replaced with in a message. */
export const REDACTED = "<redacted>";

/**
 * Replaces every occurrence of a known secret value with `<redacted>`, also as it appears URL-, form- or
 * JSON-encoded, longest first so a secret that contains another one is replaced whole. For any message
 * that may quote what a server answered, should it echo what it was sent; apply it before any shortening
 * (a cut inside an echoed secret leaves a prefix nothing recognises as the secret).
 */
export function redactValues(message: string, secrets: Iterable<string>): string {
  const values = new Set<string>();
  for (const secret of secrets) {
    if (secret === "") continue;
    values.add(secret);
    values.add(encodeURIComponent(secret));
    values.add(new URLSearchParams({ s: secret }).toString().slice(2));
    values.add(JSON.stringify(secret).slice(1, -1));
    values.add(JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/"));
  }
  let result = message;
  for (const value of [...values].sort((a, b) => b.length - a.length)) {
    result = result.split(value).join(REDACTED);
  }
  return result;
}

/**
 * Credentials by their shape, whatever their value: what a third party (a registry, a token service)
 * echoes may be a secret the caller does not know, or a part of one the server cut itself.
 */
const CREDENTIAL_SHAPES: readonly [RegExp, string][] = [
  // An echoed header, `Authorization: Bearer x`, `"authorization":["Basic x"]`: scheme and credential
  // (no word boundary asked: an echo may be glued to the text before it).
  [/(authorization["']?\s*[:=]\s*\[?\s*["']?)(?:[A-Za-z][\w-]*\s+)?[^\s"',;\]}]+/gi, `$1${REDACTED}`],
  // A credential after its scheme anywhere (token68, RFC 9110); `Bearer realm="..."` is a parameter.
  [/\b(bearer|basic)(\s+)[A-Za-z0-9\-._~+/\\]+=*(?![\w"=])/gi, `$1$2${REDACTED}`],
  // Token-service fields as a form sends them: `refresh_token=x`, `password=x`.
  [/\b((?:refresh_token|access_token|id_token|token|password|client_secret)=)[^\s&"',;]+/gi, `$1${REDACTED}`],
  // ...and as JSON: `"token": "x"`, `"passwordData":"x"`.
  [
    /("(?:refresh_token|access_token|id_token|token|password|passwordData|accessToken|refreshToken)"\s*:\s*")[^"]*/gi,
    `$1${REDACTED}`,
  ],
];

/**
 * `redactValues`, then every credential-shaped fragment (an echoed `Authorization` header, a token after
 * `Bearer`/`Basic`, token-service fields in form or JSON). For messages quoting a third party; the API
 * client uses `redactValues` alone, since this API's own messages name the header (`Authorization: Bearer
 * <token>`) in their advice.
 */
export function redact(message: string, secrets: Iterable<string>): string {
  let result = redactValues(message, secrets);
  for (const [shape, replacement] of CREDENTIAL_SHAPES) result = result.replace(shape, replacement);
  return result;
}
