// Authorization towards a registry: a given bearer token as is, or whatever the registry's 401
// challenge asks for (HTTP basic, or a token from its token service).
import { type OCICredentials, SECRET_FIELDS } from "../../sdk/schema";
import { CONDITION_REASONS } from "../../sdk/schema/status";
import { CREDENTIALS_FLAG } from "../credentials";
import { type Challenge, parseChallenge } from "./challenge";
import { ResolutionFailure, serverMessage } from "./failure";
import { type HttpResponse, header, type RequestContext, send } from "./http";
import { isLoopbackHost, type Repository } from "./reference";
import { isTransientStatus } from "./retry";

const { BundleResolutionFailed } = CONDITION_REASONS.Accepted;

/** The OAuth2 client id this project announces to token services. */
const CLIENT_ID = "exampledev";

const CREDENTIAL_SECRET_FIELDS = SECRET_FIELDS.filter(({ type }) => type === "OCICredentials").map(
  ({ field }) => field,
);

interface TokenResponse {
  token?: unknown;
  access_token?: unknown;
}

const basicCredentials = (username: string, password: string) =>
  Buffer.from(`${username}:${password}`, "utf8").toString("base64");

/**
 * Where a resolution's credentials come from: the BundleRef's `credentials`, or the `--credentials` entry
 * its `credentialsRef` names. Messages say where to fix them.
 */
export type CredentialsOrigin = "inline" | "reference";

export class RegistryAuthenticator {
  private authorization: string | undefined;
  private challengeAnswered = false;
  private refusal: string | undefined;
  private readonly password: string | undefined;
  /** Every secret value this resolution handles, for redaction of messages. */
  readonly secrets: string[];

  constructor(
    private readonly credentials: OCICredentials,
    private readonly repository: Repository,
    private readonly context: RequestContext,
    /** Where the BundleRef sits in the object, to name fields in messages. */
    private readonly fieldPath: string,
    private readonly origin: CredentialsOrigin = "inline",
  ) {
    // passwordData takes precedence over password (API-SPEC, OCICredentials).
    this.password = credentials.passwordData ?? credentials.password;
    this.secrets = CREDENTIAL_SECRET_FIELDS.flatMap((field) => {
      const value = (credentials as Record<string, unknown>)[field];
      return typeof value === "string" && value !== "" ? [value] : [];
    });
    if (credentials.username !== undefined && this.password !== undefined) {
      this.secrets.push(basicCredentials(credentials.username, this.password));
    }
    if (credentials.accessToken) this.authorization = `Bearer ${credentials.accessToken}`;
  }

  headers(): Record<string, string> {
    return this.authorization ? { authorization: this.authorization } : {};
  }

  /**
   * Answers a 401 from the registry by obtaining new authorization. Returns undefined when the request is
   * worth repeating, or why it is not; once refused, every later 401 gets the same answer.
   */
  async answer(response: HttpResponse): Promise<string | undefined> {
    if (this.refusal === undefined) {
      if (this.credentials.accessToken) this.refusal = "the registry rejected the access token";
      else if (this.challengeAnswered) this.refusal = this.rejectedCredentials();
      else {
        this.challengeAnswered = true;
        this.refusal = await this.meet(parseChallenge(header(response.headers, "www-authenticate")));
      }
    }
    return this.refusal;
  }

  private async meet(challenge: Challenge | undefined): Promise<string | undefined> {
    if (challenge?.scheme === "basic") {
      if (this.credentials.username === undefined || this.password === undefined) {
        return `the registry requires a username and password: ${this.setFields(["username", "passwordData"])}`;
      }
      this.authorization = `Basic ${basicCredentials(this.credentials.username, this.password)}`;
      return undefined;
    }
    if (challenge?.scheme === "bearer" && challenge.params.realm) {
      const token = await this.exchange(challenge, challenge.params.realm);
      this.secrets.push(token);
      this.authorization = `Bearer ${token}`;
      return undefined;
    }
    return challenge
      ? `the registry asks for "${challenge.scheme}" authentication, which is not supported`
      : "the registry requires authentication but sent no WWW-Authenticate challenge";
  }

  private setFields(fields: string[]): string {
    return this.origin === "inline"
      ? `set ${fields.map((field) => `${this.fieldPath}.credentials.${field}`).join(" and ")}`
      : `set ${fields.join(" and ")} in ${this.referencedEntry()}`;
  }

  private referencedEntry(): string {
    return `the ${CREDENTIALS_FLAG} entry that ${this.fieldPath}.credentialsRef names`;
  }

  private rejectedCredentials(): string {
    if (this.credentials.refreshToken) {
      return "the registry rejected the token obtained with the refresh token";
    }
    if (this.credentials.username !== undefined) {
      return `the registry rejected the credentials of user "${this.credentials.username}"`;
    }
    const fix =
      this.origin === "inline"
        ? `set ${this.fieldPath}.credentials`
        : `give ${this.referencedEntry()} a username and passwordData, an accessToken or a refreshToken`;
    return `the registry refused anonymous access: ${fix}`;
  }

  private describeGrant(): string {
    if (this.credentials.refreshToken) return "the refresh token";
    if (this.credentials.username !== undefined) {
      return `the credentials of user "${this.credentials.username}"`;
    }
    return "anonymous access";
  }

  /** The token-service exchange of the distribution token-auth spec (OAuth2 refresh grant or GET). */
  private async exchange(challenge: Challenge, realmText: string): Promise<string> {
    const realm = this.tokenServiceUrl(realmText);
    const service = challenge.params.service;
    const scope = challenge.params.scope ?? `repository:${this.repository.path}:pull`;
    const { refreshToken, username } = this.credentials;
    let response: HttpResponse;
    if (refreshToken) {
      const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken });
      if (service) form.set("service", service);
      form.set("scope", scope);
      form.set("client_id", CLIENT_ID);
      const headers = { "content-type": "application/x-www-form-urlencoded" };
      response = await send({ url: realm, method: "POST", headers, body: form.toString() }, this.context);
    } else {
      const url = new URL(realm);
      if (service) url.searchParams.set("service", service);
      url.searchParams.set("scope", scope);
      const headers: Record<string, string> =
        username !== undefined && this.password !== undefined
          ? { authorization: `Basic ${basicCredentials(username, this.password)}` }
          : {};
      response = await send({ url, method: "GET", headers }, this.context);
    }
    const where = `token service ${realm.origin}${realm.pathname}`;
    if (response.status !== 200) {
      const said = serverMessage(response.body, this.secrets);
      throw new ResolutionFailure(
        BundleResolutionFailed,
        `${where} refused ${this.describeGrant()} (HTTP ${response.status}${said ? `: ${said}` : ""})`,
        isTransientStatus(response.status),
      );
    }
    let body: TokenResponse | undefined;
    try {
      body = JSON.parse(response.body.toString("utf8")) as TokenResponse;
    } catch {
      body = undefined;
    }
    const token = body?.token ?? body?.access_token;
    if (typeof token !== "string" || token === "") {
      throw new ResolutionFailure(BundleResolutionFailed, `${where} answered without a token`, false);
    }
    return token;
  }

  /** Credentials travel to the token service too: plain HTTP only on loopback, as for registries. */
  private tokenServiceUrl(realm: string): URL {
    let url: URL;
    try {
      url = new URL(realm);
    } catch {
      throw new ResolutionFailure(
        BundleResolutionFailed,
        `the registry named an invalid token realm "${realm}"`,
        false,
      );
    }
    if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.host))) return url;
    throw new ResolutionFailure(
      BundleResolutionFailed,
      `the registry's token realm ${url.origin} must use https (plain http is allowed only on loopback)`,
      false,
    );
  }
}
