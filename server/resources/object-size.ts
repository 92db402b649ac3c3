import type { ApiError } from "../../sdk/errors";
import { apiError, qualifiedResource } from "../../sdk/errors/server-errors";
import { KINDS, type KindName } from "../../sdk/schema";
import { isRecord } from "../records";

/**
 * The largest object the server stores, as JSON: etcd's default request limit (1.5 MiB), which is what a
 * Kubernetes API server on a default etcd refuses an object over (413). `--max-object-size` changes it.
 */
export const DEFAULT_MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/**
 * Request bodies may be larger than the object they carry (indentation, YAML, a JSON patch's envelope):
 * Kubernetes reads bodies of up to twice etcd's limit (3 MiB against 1.5 MiB), so the server does too.
 * Anything larger is refused (413) before it is read.
 */
export function bodyLimitFor(maxObjectBytes: number): number {
  return 2 * maxObjectBytes;
}

/** The size of a value as compact JSON, in bytes: what the store would write. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}

/** `1572864 bytes (1.5Mi)`: a limit in the words of the flag that sets it. */
export function describeBytes(bytes: number): string {
  const units = [
    ["Gi", 1024 ** 3],
    ["Mi", 1024 ** 2],
    ["Ki", 1024],
  ] as const;
  const unit = units.find(([, size]) => bytes >= size);
  if (unit === undefined) return `${bytes} bytes`;
  const amount = Math.round((bytes / unit[1]) * 100) / 100;
  return `${bytes} bytes (${amount}${unit[0]})`;
}

/** 413 RequestEntityTooLarge, as Kubernetes answers an object its storage refuses. */
export function tooLarge(what: string, maxObjectBytes: number): ApiError {
  return apiError(
    "RequestEntityTooLarge",
    `Request entity too large: ${what}; an object may take at most ${describeBytes(maxObjectBytes)} ` +
      "(the server's --max-object-size): keep large data out of the object, or raise the limit",
  );
}

/** Refuses (413) an object of `kind` (a body, a patched or admitted object) whose JSON is over the limit. */
export function checkObjectSize(kind: KindName, object: unknown, maxObjectBytes: number): void {
  const bytes = jsonBytes(object);
  if (bytes <= maxObjectBytes) return;
  const name = isRecord(object) && isRecord(object.metadata) ? object.metadata.name : undefined;
  const what = `${qualifiedResource(KINDS[kind])}${typeof name === "string" ? ` "${name}"` : ""}`;
  throw tooLarge(`${what} would be ${bytes} bytes as JSON`, maxObjectBytes);
}
