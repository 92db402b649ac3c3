// Why a build failed, as a sentence for the Service's status: what failed and how to fix it.
import { redact } from "../../sdk/errors/redact";
import type { CONDITION_REASONS, CONDITION_TYPES, ReasonOf } from "../../sdk/schema/status";

export class BuildFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BuildFailure";
  }
}

/** Why a fetch failed: the `SourceReady` reason it reports. */
export type FetchFailureReason = Exclude<
  ReasonOf<typeof CONDITION_TYPES.SourceReady>,
  SourceReasons["Fetched"] | SourceReasons["AwaitingFetch"]
>;
type SourceReasons = typeof CONDITION_REASONS.SourceReady;

/** A fetch that failed, with the `SourceReady` reason; its message is redacted already. */
export class FetchFailure extends BuildFailure {
  constructor(
    readonly reason: FetchFailureReason,
    message: string,
  ) {
    super(message);
    this.name = "FetchFailure";
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

/** `512 KiB`, `3 MiB`, `1 GiB`: sizes in messages, rounded up. */
export function sizeText(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Math.ceil(value)} ${units[unit]}`;
}
