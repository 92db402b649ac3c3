/** Tells a waiting build how many builds wait ahead of it; called when the number changes. */
export type QueuePositionListener = (ahead: number) => void;

interface Waiter {
  grant: () => void;
  onPosition: QueuePositionListener | undefined;
  /** The number last told to `onPosition`. */
  ahead: number;
}

// A counting semaphore: at most `limit` builds run at once; the rest wait (phase Pending) in order, each
// told how many wait ahead of it whenever that changes (status.build.ahead).
export class Slots {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limit: number) {}

  /**
   * Resolves with the release function once a slot is free; rejects when `signal` aborts first. A build
   * that must wait is told its place at once (synchronously, before this returns), then on every change.
   */
  acquire(signal: AbortSignal, onPosition?: QueuePositionListener): Promise<() => void> {
    signal.throwIfAborted();
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener("abort", cancel);
          this.running++;
          resolve(this.releaser());
        },
        onPosition,
        ahead: this.waiting.length,
      };
      const cancel = () => {
        const index = this.waiting.indexOf(waiter);
        if (index !== -1) {
          this.waiting.splice(index, 1);
          this.renumber(index);
        }
        reject(signal.reason);
      };
      signal.addEventListener("abort", cancel, { once: true });
      this.waiting.push(waiter);
      onPosition?.(waiter.ahead);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.waiting.shift()?.grant();
      this.renumber(0);
    };
  }

  /** The waiters from `from` on moved up: tell each its new place. */
  private renumber(from: number): void {
    for (let index = from; index < this.waiting.length; index++) {
      const waiter = this.waiting[index] as Waiter;
      if (waiter.ahead === index) continue;
      waiter.ahead = index;
      waiter.onPosition?.(index);
    }
  }
}
