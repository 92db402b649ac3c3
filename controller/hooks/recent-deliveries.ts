// Webhook delivery ids seen lately (`X-GitHub-Delivery`, `X-Gitlab-Event-UUID`): a forge redelivers on a
// timeout, and a replayed delivery must not build twice. Bounded in time and in count.

const DEFAULT_WINDOW_MS = 60 * 60 * 1000;
const DEFAULT_CAPACITY = 100_000;

export class RecentDeliveries {
  /** Id to the time it was first seen; insertion order is age order. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly windowMs = DEFAULT_WINDOW_MS,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

  /** True the first time `id` is offered within the window; false for a repeat. */
  claim(id: string, now = Date.now()): boolean {
    for (const [oldest, at] of this.seen) {
      if (now - at < this.windowMs && this.seen.size < this.capacity) break;
      this.seen.delete(oldest);
    }
    if (this.seen.has(id)) return false;
    this.seen.set(id, now);
    return true;
  }

  /** Forgets a claimed id whose delivery was not acted on, so that its redelivery is. */
  release(id: string): void {
    this.seen.delete(id);
  }
}
