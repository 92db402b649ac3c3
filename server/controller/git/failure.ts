// Why a build failed, as a sentence for the Service's status: what failed and how to fix it.
import { redact } from "../../../sdk/errors/redact";

export class BuildFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BuildFailure";
  }
}

/** `BuildStatus.message` holds at most this many bytes. */
export const MAX_BUILD_MESSAGE_BYTES = 2048;

/** Secrets redacted first (a cut inside one would leave a prefix nothing recognises), then bounded. */
export function buildMessage(message: string, secrets: Iterable<string>): string {
  const text = redact(message, secrets);
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= MAX_BUILD_MESSAGE_BYTES) return text;
  const marker = "...";
  // Drop a character the cut split in two (U+FFFD at the end of the decoded prefix).
  return `${bytes
    .subarray(0, MAX_BUILD_MESSAGE_BYTES - marker.length)
    .toString("utf8")
    .replace(/\uFFFD$/, "")}${marker}`;
}
