/** `waitFor` ran out of time; `lastSeen` is the object at the last poll (undefined when it did not exist). */
export class WaitTimeoutError extends Error {
  readonly lastSeen: unknown;

  constructor(subject: string, timeoutMs: number, lastSeen: unknown) {
    super(
      `${subject} did not reach the awaited state within ${timeoutMs} ms (${describeLastSeen(lastSeen)})`,
    );
    this.name = new.target.name;
    this.lastSeen = lastSeen;
  }
}

function describeLastSeen(object: unknown): string {
  if (object === undefined) return "last seen: not found";
  const meta = (object as { metadata?: { generation?: number; resourceVersion?: string } }).metadata;
  return `last seen at generation ${meta?.generation ?? "?"}, resourceVersion ${meta?.resourceVersion ?? "?"}`;
}
