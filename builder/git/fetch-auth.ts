// How a fetch authenticates: the credentials `source.git.credentialsRef` names become one HTTP
// `Authorization` header, handed to that one git process as configuration in its environment
// (GIT_CONFIG_COUNT/KEY/VALUE). Never on the command line (`ps` shows it to every user of the machine),
// in the URL, or in the mirror's config; redirects are not followed, so the header reaches one host only.
import type { OCICredentials } from "../../sdk/schema";

export interface FetchAuth {
  /** The `Authorization` header's value (`Basic …` or `Bearer …`). */
  header: string;
  /** Every form of the secret a message could quote, for redaction. */
  secrets: string[];
}

/** The header for `credentials`, or which fields git needs when they cannot make one. */
export function fetchAuthOf(credentials: OCICredentials): FetchAuth | { problem: string } {
  const { username, passwordData, password, accessToken } = credentials;
  const secret = passwordData ?? password ?? accessToken;
  if (username && secret) {
    const basic = Buffer.from(`${username}:${secret}`, "utf8").toString("base64");
    return { header: `Basic ${basic}`, secrets: [secret, basic] };
  }
  if (accessToken) return { header: `Bearer ${accessToken}`, secrets: [accessToken] };
  return {
    problem:
      "it has no credentials git can send: give username with passwordData (or a token as the password), or accessToken for a bearer token (a refreshToken is for registries only)",
  };
}

/** Environment variables that give one git process the header (git reads them as `-c` settings). */
export function authEnvironment(auth: FetchAuth): NodeJS.ProcessEnv {
  const settings: [string, string][] = [
    ["http.extraHeader", `Authorization: ${auth.header}`],
    ["http.followRedirects", "false"],
  ];
  return Object.fromEntries([
    ["GIT_CONFIG_COUNT", String(settings.length)],
    ...settings.flatMap(([key, value], index) => [
      [`GIT_CONFIG_KEY_${index}`, key],
      [`GIT_CONFIG_VALUE_${index}`, value],
    ]),
  ]);
}
