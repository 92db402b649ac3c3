// Tag -> digest through the OCI distribution API: HEAD the manifest for its Docker-Content-Digest;
// when that does not tell, GET it and hash the body (the GET also carries the registry's error).
import { createHash } from "node:crypto";
import { redact } from "../../sdk/errors/redact";
import type { BundleRef } from "../../sdk/schema";
import { CONDITION_REASONS } from "../../sdk/schema/status";
import { type CredentialsSource, NO_CREDENTIALS_FILE } from "../credentials";
import { RegistryAuthenticator } from "./auth";
import { type FailureReason, ResolutionFailure, serverMessage } from "./failure";
import { type HttpResponse, header, type RequestContext, send } from "./http";
import { manifestUrl, parseRepository, type Repository } from "./reference";
import { defaultSleep, isTransientStatus, type Sleep } from "./retry";

const { BundleResolutionFailed } = CONDITION_REASONS.Accepted;

export interface ResolveOptions {
  /** Per HTTP attempt. Default 10 s. */
  timeoutMs?: number;
  /** Retries of each request after a connection error, timeout, 429 or 5xx. Default 3. */
  retries?: number;
  /** Aborting rejects the promise with the signal's reason. */
  signal?: AbortSignal;
  /** Waits between retries; tests pass one that records instead of waiting. */
  sleep?: Sleep;
  /** Where the BundleRef sits in the object, for messages. Default `spec.source.oci`. */
  fieldPath?: string;
  /** What a `credentialsRef` names (`--credentials`). Default: no file, so every reference is missing. */
  credentials?: CredentialsSource;
}

export type ResolveResult =
  | { ok: true; digest: string }
  | { ok: false; reason: FailureReason; message: string; retryable: boolean };

// Mirrors the schema's BundleRef default (tag "latest"), which sdk/schema applies but does not export.
export const DEFAULT_TAG = "latest";
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 3;

// Index types first: a multi-platform tag resolves to its index, never to one platform's manifest.
const MANIFEST_TYPES = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");

const SHA256_DIGEST = /^sha256:[0-9a-f]{64}$/;

function registryFailure(
  response: HttpResponse,
  what: string,
  secrets: readonly string[],
): ResolutionFailure {
  const said = serverMessage(response.body, secrets);
  const status = `HTTP ${response.status}${said ? `: ${said}` : ""}`;
  return new ResolutionFailure(
    BundleResolutionFailed,
    `${what} (${status})`,
    isTransientStatus(response.status),
  );
}

function describeStatus(status: number): string {
  if (status === 404) return "the registry has no such manifest";
  if (status === 403) return "the registry denied access";
  if (isTransientStatus(status)) return "the registry kept failing";
  return "the registry refused the request";
}

interface ManifestAnswer {
  response: HttpResponse;
  /** Why a 401 stands: set when the credentials cannot get past the registry. */
  refusal?: string;
}

async function fetchManifest(
  method: "HEAD" | "GET",
  url: URL,
  auth: RegistryAuthenticator,
  context: RequestContext,
): Promise<ManifestAnswer> {
  for (;;) {
    const response = await send(
      { url, method, headers: { accept: MANIFEST_TYPES, ...auth.headers() } },
      context,
    );
    if (response.status !== 401) return { response };
    // The authenticator answers one challenge per resolution, so this loop repeats at most once.
    const refusal = await auth.answer(response);
    if (refusal) return { response, refusal };
  }
}

async function resolveTag(
  repository: Repository,
  tag: string,
  auth: RegistryAuthenticator,
  context: RequestContext,
): Promise<string> {
  const url = manifestUrl(repository, tag);
  const head = (await fetchManifest("HEAD", url, auth, context)).response;
  const announced = header(head.headers, "docker-content-digest");
  if (head.status === 200 && announced && SHA256_DIGEST.test(announced)) return announced;
  // Transient failures were retried already; anything else is asked again with GET, whose body is
  // either the manifest to hash or the registry's error document to quote.
  if (isTransientStatus(head.status)) {
    throw registryFailure(head, describeStatus(head.status), auth.secrets);
  }
  const get = await fetchManifest("GET", url, auth, context);
  if (get.response.status !== 200) {
    throw registryFailure(get.response, get.refusal ?? describeStatus(get.response.status), auth.secrets);
  }
  return `sha256:${createHash("sha256").update(get.response.body).digest("hex")}`;
}

/**
 * Resolves a BundleRef to a `sha256:` manifest digest. A set digest is returned as is, without network
 * (once a `credentialsRef` is found: a reference to missing credentials fails either way); otherwise the
 * tag (default `latest`) is looked up in the registry named by `repo`. Failures are values, their
 * messages free of secrets; `retryable` says whether trying later can help.
 */
export async function resolveBundle(ref: BundleRef, options: ResolveOptions = {}): Promise<ResolveResult> {
  const fieldPath = options.fieldPath ?? "spec.source.oci";
  const tag = ref.tag ?? DEFAULT_TAG;
  const context: RequestContext = {
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retries: options.retries ?? DEFAULT_RETRIES,
    signal: options.signal,
    sleep: options.sleep ?? defaultSleep,
  };
  let secrets: string[] = [];
  try {
    const found = (options.credentials ?? NO_CREDENTIALS_FILE).lookup(ref, fieldPath);
    // Not retried on a backoff: the controller syncs such Services again when the file changes.
    if (!found.ok) throw new ResolutionFailure(found.reason, found.message, false);
    if (ref.digest) return { ok: true, digest: ref.digest };
    const repository = parseRepository(ref.repo, fieldPath);
    const origin = ref.credentialsRef ? "reference" : "inline";
    const auth = new RegistryAuthenticator(found.credentials ?? {}, repository, context, fieldPath, origin);
    secrets = auth.secrets;
    return { ok: true, digest: await resolveTag(repository, tag, auth, context) };
  } catch (error) {
    if (!(error instanceof ResolutionFailure)) throw error;
    const message =
      error.reason === BundleResolutionFailed
        ? `cannot resolve tag "${tag}" of ${ref.repo} (${fieldPath}): ${error.message}`
        : error.message;
    return { ok: false, reason: error.reason, message: redact(message, secrets), retryable: error.retryable };
  }
}
