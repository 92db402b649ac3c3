import { ExampledevError } from "./exampledev-error";
/**
 * A wait that ended without the awaited state: `reason` says why (`Timeout`, or the failure the object itself
 * reported, a condition's reason), `lastSeen` is the object last seen (undefined when it did not exist). The
 * client's `waitFor` and the provider's waits throw it or its subclass.
 */
export class WaitFailedError extends ExampledevError {
  readonly reason: string;
  readonly lastSeen: unknown;

  constructor(message: string, reason: string, lastSeen: unknown) {
    super(message);
    this.reason = reason;
    this.lastSeen = lastSeen;
  }
}

/** The wait ran out of time (reason `Timeout`). `message` replaces the default one, which names `subject`. */
export class WaitTimeoutError extends WaitFailedError {
  readonly timeoutMs: number;

  constructor(subject: string, timeoutMs: number, lastSeen: unknown, message?: string) {
    super(
      message ??
        `${subject} did not reach the awaited state within ${timeoutMs} ms (${describeLastSeen(lastSeen)})`,
      "Timeout",
      lastSeen,
    );
    this.timeoutMs = timeoutMs;
  }
}

function describeLastSeen(object: unknown): string {
  if (object === undefined) return "last seen: not found";
  const meta = (object as { metadata?: { generation?: number; resourceVersion?: string } }).metadata;
  return `last seen at generation ${meta?.generation ?? "?"}, resourceVersion ${meta?.resourceVersion ?? "?"}`;
}
