import type { Client } from "../sdk/client";
import type { KubeconfigOrigin } from "../sdk/client/kubeconfig";
import { SETTINGS, type SettingName } from "../sdk/client/settings";
import {
  type ApiError,
  ConnectionError,
  CreateUnconfirmedError,
  ForbiddenError,
  GatewayTimeoutError,
  NotFoundError,
  ServiceUnavailableError,
  TimeoutError,
  TransportError,
  UnauthorizedError,
  UnexpectedResponseError,
} from "../sdk/errors";

/**
 * Where the address and the credentials in use come from, so that a failure to reach the API, or a refusal of
 * the credentials, names the setting that fixes it: the environment variable, the stack config, or a
 * kubeconfig's context (and the setting that names the file). Names only: never a token or a key.
 */
export interface AccessOrigins {
  /** The address: `exampledev:baseUrl`'s variable or config, or the kubeconfig context's cluster. */
  baseUrl: "environment" | "config" | "kubeconfig";
  /** The origin (scheme, host, port) of the address, for messages. */
  address: string;
  /** The bearer token, or the kubeconfig user's client certificate, or nothing. */
  credentials: "environment" | "config" | "kubeconfig" | "none";
  /** The certificate authority the client trusts beyond the system's. */
  ca: "environment" | "config" | "kubeconfig" | "none";
  /** The kubeconfig read, when one is set, and which setting names it and its context. */
  kubeconfig?: KubeconfigOrigin & {
    fileFrom: "environment" | "config";
    contextFrom: "environment" | "config" | undefined;
  };
}

/** `exampledev:baseUrl` as a message names a setting: the config key, then how else to give it. */
function config(name: SettingName): string {
  return SETTINGS[name].config;
}
function variable(name: SettingName): string {
  return SETTINGS[name].env;
}

/** `exampledev:x (or EXAMPLEDEV_X)`. */
function either(name: SettingName): string {
  return `${config(name)} (or ${variable(name)})`;
}

/** Where a plain setting's value comes from, and how to change it. */
function fromSetting(name: SettingName, origin: "environment" | "config", what: string, set: string): string {
  const wins = SETTINGS[name].precedence === "environment";
  if (origin === "environment") {
    return `${what} comes from the environment variable ${variable(name)}${
      wins ? `, which wins over the stack config ${config(name)}` : ""
    }: correct or unset it`;
  }
  return `${what} comes from the stack config ${config(name)}: correct it with \`${set}\`${
    wins ? `, or override it with the environment variable ${variable(name)}` : ""
  }`;
}

function kubeconfigPlace(origins: AccessOrigins): string {
  const file = origins.kubeconfig;
  if (file === undefined) return "the kubeconfig";
  const by = file.fileFrom === "environment" ? variable("kubeconfig") : config("kubeconfig");
  const context =
    file.contextFrom === undefined
      ? `its current-context "${file.context}"`
      : `context "${file.context}" (chosen by ${file.contextFrom === "environment" ? variable("context") : config("context")})`;
  return `the kubeconfig ${file.file} (named by ${by}), ${context}`;
}

/** What to fix when the address cannot be reached or is not the API's. */
export function addressAdvice(origins: AccessOrigins): string {
  if (origins.baseUrl !== "kubeconfig") {
    return fromSetting(
      "baseUrl",
      origins.baseUrl,
      `the address ${origins.address}`,
      `pulumi config set ${config("baseUrl")} <url>`,
    );
  }
  const cluster = origins.kubeconfig?.cluster ? `cluster "${origins.kubeconfig.cluster}"` : "the cluster";
  return (
    `the address ${origins.address} is the server of ${cluster} in ${kubeconfigPlace(origins)}: ` +
    `check that the cluster runs and that the context is the right one (${either("context")} chooses ` +
    `another), or give the address with ${either("baseUrl")}, which wins over the kubeconfig's`
  );
}

/** What to fix when the API refuses the credentials, or what they identify. */
export function credentialsAdvice(origins: AccessOrigins): string {
  const set = `pulumi config set --secret ${config("token")} <token>`;
  switch (origins.credentials) {
    case "environment":
    case "config":
      return fromSetting("token", origins.credentials, "the token", set);
    case "kubeconfig": {
      const user = origins.kubeconfig?.user ? `user "${origins.kubeconfig.user}"` : "the user";
      return (
        `the credentials are those of ${user} in ${kubeconfigPlace(origins)}: renew them there, choose ` +
        `another context with ${either("context")}, or give a token with ${either("token")}, which wins ` +
        `over the kubeconfig's`
      );
    }
    case "none":
      return (
        `no token is set: give one with \`${set}\` or the environment variable ${variable("token")}` +
        (origins.kubeconfig === undefined
          ? ""
          : `, or use a context whose user has one (${kubeconfigPlace(origins)} has none)`)
      );
  }
}

/** What to fix when the server's certificate is not trusted. */
function certificateAdvice(origins: AccessOrigins): string {
  const settings = `${either("caCertificate")} or ${either("caCertificateFile")}`;
  if (origins.ca === "kubeconfig")
    return `the certificate authority comes from ${kubeconfigPlace(origins)}: correct it there, or give it with ${settings}`;
  if (origins.ca === "none") return `give the certificate of the authority that signed it with ${settings}`;
  return `the certificate authority given by ${settings} did not sign it: correct it`;
}

/** Error codes of a TLS handshake whose certificate the client does not accept. */
const CERTIFICATE_CODES =
  /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|ERR_SSL|EPROTO|HOSTNAME|ALTNAME/;

const EXPLAINED = Symbol("exampledev.accessExplained");

/** Whether `error` is a failure to reach the API or a refusal of the credentials, explained by `explain`. */
export function isAccessFailure(error: unknown): boolean {
  return typeof error === "object" && error !== null && EXPLAINED in error;
}

/** `Proxy "edge": ` as an ApiError's own message starts, or nothing for a request about no one object. */
function subjectOf(error: ApiError): string {
  if (error.kind && error.objectName) return `${error.kind} "${error.objectName}": `;
  return error.objectName ? `"${error.objectName}": ` : "";
}

/** What the server said beyond its status (its message or causes, already redacted), last, in parentheses. */
function serverSaid(error: ApiError): string {
  const head = `(${error.code} ${error.reason}): `;
  const at = error.message.indexOf(head);
  return at === -1 ? "" : ` (the API said: ${error.message.slice(at + head.length)})`;
}

/**
 * The message for a failure to reach the API or a refusal of the credentials, naming the setting that fixes
 * it; undefined for any other error. HTTP details come last, in parentheses.
 */
export function accessMessage(error: unknown, origins: AccessOrigins): string | undefined {
  const at = `the API at ${origins.address}`;
  if (error instanceof UnauthorizedError) {
    return (
      `${subjectOf(error)}${at} did not accept the credentials (${error.code} ${error.reason}): ` +
      `${credentialsAdvice(origins)}${serverSaid(error)}`
    );
  }
  if (error instanceof ForbiddenError) {
    return (
      `${subjectOf(error)}${at} does not allow this to the identity of the credentials ` +
      `(${error.code} ${error.reason}): give it the permission, or use other credentials: ` +
      `${credentialsAdvice(origins)}${serverSaid(error)}`
    );
  }
  if (error instanceof ConnectionError && CERTIFICATE_CODES.test(error.code ?? "")) {
    return `cannot connect to ${at}: its certificate is not trusted: ${certificateAdvice(origins)} (${error.message})`;
  }
  if (error instanceof TimeoutError) {
    return (
      `${at} is unavailable: no answer within ${error.timeoutMs / 1000}s (on Kubernetes, kube-apiserver ` +
      `holds a write or a consistent read while etcd has no quorum): ${addressAdvice(origins)}; ` +
      `or, for a slow API, raise ${either("requestTimeoutSeconds")} (${error.message})`
    );
  }
  if (error instanceof GatewayTimeoutError || error instanceof ServiceUnavailableError) {
    return (
      `${subjectOf(error)}${at} is unavailable (${error.code} ${error.reason}): it could not complete the ` +
      `request (on Kubernetes, kube-apiserver answers so while etcd has no quorum): run it again once the ` +
      `API serves; the provider finds its own objects, so nothing is made twice${serverSaid(error)}`
    );
  }
  if (error instanceof TransportError) {
    return `cannot reach ${at}: ${addressAdvice(origins)} (${error.message})`;
  }
  if (error instanceof UnexpectedResponseError) {
    return `${at} does not answer as the API: ${addressAdvice(origins)} (${error.message})`;
  }
  if (error instanceof CreateUnconfirmedError) {
    const cause = [error.cause, error.lookupError].find(
      (inner) => accessMessage(inner, origins) !== undefined,
    );
    return cause === undefined ? undefined : `${error.message}: ${accessMessage(cause, origins)}`;
  }
  return undefined;
}

/**
 * Rewrites the message of an access failure in place (its class stays, so callers that tell errors apart
 * still do) and marks it; other errors are returned as they are.
 */
export function explain(error: unknown, origins: AccessOrigins): unknown {
  if (!(error instanceof Error) || isAccessFailure(error)) return error;
  const message = accessMessage(error, origins);
  if (message === undefined) return error;
  const before = error.message;
  error.message = message;
  if (typeof error.stack === "string") error.stack = error.stack.replace(before, message);
  Object.defineProperty(error, EXPLAINED, { value: true });
  return error;
}

/**
 * The client with every rejected call of its kinds' accessors explained (see `explain`): create, read,
 * update, delete, list and the watches' opening, at preview and at up.
 */
export function explainingClient(client: Client, origins: () => AccessOrigins): Client {
  const explainCalls = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const result = value.apply(object, args);
          if (result instanceof Promise) {
            return result.catch((error: unknown) => {
              throw explain(error, origins());
            });
          }
          return result;
        };
      },
    });
  return {
    ...client,
    proxies: explainCalls(client.proxies),
    services: explainCalls(client.services),
    serviceRevisions: explainCalls(client.serviceRevisions),
  };
}

/**
 * What a look at the API (a list of one object of `kind`) says about the settings: a message naming the
 * setting to fix when the API cannot be reached, refuses the credentials, or does not serve the kind at the
 * address; undefined when it answered, or failed some other way (the dry runs will tell).
 */
export async function accessProblem(
  look: () => Promise<unknown>,
  origins: () => AccessOrigins,
  kind: string,
): Promise<string | undefined> {
  try {
    await look();
    return undefined;
  } catch (error) {
    if (isAccessFailure(error)) return (error as Error).message;
    if (error instanceof NotFoundError) {
      return (
        `the API at ${origins().address} does not serve ${kind} objects (404 on their list): ` +
        `${addressAdvice(origins())}; on Kubernetes, install the CRDs (deploy/)`
      );
    }
    return undefined;
  }
}
