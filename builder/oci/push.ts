// Pushes an OCI image (config, layers, manifest) through the distribution API with the resolver's
// authentication: HEAD skips blobs the registry has, a monolithic upload (POST, then PUT ?digest=) sends
// the others, and the manifest is PUT by tag, or by digest without one. The manifest digest is returned.
import { createHash } from "node:crypto";
import { redact } from "../../sdk/errors/redact";
import type { BundleRef } from "../../sdk/schema";
import { CONDITION_REASONS } from "../../sdk/schema/status";
import { RegistryAuthenticator } from "./auth";
import { ResolutionFailure, serverMessage } from "./failure";
import { type HttpRequest, type HttpResponse, header, type RequestContext, send } from "./http";
import { parseRepository, type Repository, registryBaseUrl } from "./reference";
import { defaultSleep, isTransientStatus, type Sleep } from "./retry";

// The resolver's failure type carries a reason; a push failure is reported by the build as BuildFailed.
const { BundleResolutionFailed } = CONDITION_REASONS.Accepted;

export const OCI_MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json";

export interface Blob {
  mediaType: string;
  data: Buffer;
}

export interface Image {
  config: Blob;
  layers: readonly Blob[];
  /** The manifest's annotations. */
  annotations: Readonly<Record<string, string>>;
}

export interface PushOptions {
  /** Per HTTP attempt. Default 30 s (layers may be large). */
  timeoutMs?: number;
  /** Retries of each request after a connection error, timeout, 429 or 5xx. Default 3. */
  retries?: number;
  signal?: AbortSignal;
  sleep?: Sleep;
  /** Where the BundleRef sits in the object, for messages. Default `spec.source.git.build.output`. */
  fieldPath?: string;
}

export type PushResult = { ok: true; digest: string } | { ok: false; message: string; retryable: boolean };

const digestOf = (data: Buffer) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

class Pusher {
  private readonly base: string;
  /** Upload URL of a session opened but not used yet (the first POST also obtains push authorization). */
  private pendingUpload: URL | undefined;

  constructor(
    private readonly repository: Repository,
    private readonly auth: RegistryAuthenticator,
    private readonly context: RequestContext,
  ) {
    const name = repository.path.split("/").map(encodeURIComponent).join("/");
    this.base = `${registryBaseUrl(repository.host)}/v2/${name}`;
  }

  /** Sends with authorization, answering one 401 challenge; a refused one fails with the reason. */
  private async send(request: Omit<HttpRequest, "headers"> & { headers?: Record<string, string> }) {
    for (;;) {
      const response = await send(
        { ...request, headers: { ...request.headers, ...this.auth.headers() } },
        this.context,
      );
      if (response.status !== 401) return response;
      const refusal = await this.auth.answer(response);
      if (refusal) throw new ResolutionFailure(BundleResolutionFailed, refusal, false);
    }
  }

  private fail(response: HttpResponse, what: string): never {
    const said = serverMessage(response.body, this.auth.secrets);
    throw new ResolutionFailure(
      BundleResolutionFailed,
      `${what} (HTTP ${response.status}${said ? `: ${said}` : ""})`,
      isTransientStatus(response.status),
    );
  }

  async openUpload(): Promise<URL> {
    const response = await this.send({ url: new URL(`${this.base}/blobs/uploads/`), method: "POST" });
    const location = header(response.headers, "location");
    if (response.status !== 202 || !location)
      this.fail(response, `the registry refused to open an upload in ${this.repository.path}`);
    return new URL(location, this.base);
  }

  /** Opens the session up front: with token auth, a POST's challenge asks for push scope, a HEAD's does not. */
  async start(): Promise<void> {
    this.pendingUpload = await this.openUpload();
  }

  async pushBlob(blob: Blob): Promise<{ mediaType: string; digest: string; size: number }> {
    const digest = digestOf(blob.data);
    const descriptor = { mediaType: blob.mediaType, digest, size: blob.data.length };
    const head = await this.send({ url: new URL(`${this.base}/blobs/${digest}`), method: "HEAD" });
    if (head.status === 200) return descriptor;
    const upload = this.pendingUpload ?? (await this.openUpload());
    this.pendingUpload = undefined;
    upload.searchParams.set("digest", digest);
    const put = await this.send({
      url: upload,
      method: "PUT",
      headers: { "content-type": "application/octet-stream", "content-length": String(blob.data.length) },
      body: blob.data,
    });
    if (put.status !== 201) this.fail(put, `the registry refused blob ${digest}`);
    return descriptor;
  }

  async pushManifest(manifest: Buffer, reference: string): Promise<void> {
    const put = await this.send({
      url: new URL(`${this.base}/manifests/${reference}`),
      method: "PUT",
      headers: { "content-type": OCI_MANIFEST_TYPE },
      body: manifest,
    });
    if (put.status !== 201) this.fail(put, `the registry refused the manifest`);
  }
}

/** Pushes `image` to `output.repo` (tagged `output.tag` when set); failures are values, free of secrets. */
export async function pushImage(
  output: BundleRef,
  image: Image,
  options: PushOptions = {},
): Promise<PushResult> {
  const fieldPath = options.fieldPath ?? "spec.source.git.build.output";
  const context: RequestContext = {
    timeoutMs: options.timeoutMs ?? 30_000,
    retries: options.retries ?? 3,
    signal: options.signal,
    sleep: options.sleep ?? defaultSleep,
  };
  let secrets: readonly string[] = [];
  try {
    const repository = parseRepository(output.repo, fieldPath);
    const auth = new RegistryAuthenticator(output.credentials ?? {}, repository, context, fieldPath);
    secrets = auth.secrets;
    const pusher = new Pusher(repository, auth, context);
    await pusher.start();
    const config = await pusher.pushBlob(image.config);
    const layers = [];
    for (const layer of image.layers) layers.push(await pusher.pushBlob(layer));
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: OCI_MANIFEST_TYPE,
        config,
        layers,
        annotations: image.annotations,
      }),
    );
    const digest = digestOf(manifest);
    await pusher.pushManifest(manifest, output.tag ?? digest);
    return { ok: true, digest };
  } catch (error) {
    if (!(error instanceof ResolutionFailure)) throw error;
    const message = `cannot push to ${output.repo} (${fieldPath}): ${error.message}`;
    return { ok: false, message: redact(message, secrets), retryable: error.retryable };
  }
}
