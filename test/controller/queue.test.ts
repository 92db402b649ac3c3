import { describe, expect, it, vi } from "vitest";
import { WorkQueue } from "../../controller/queue";

describe("WorkQueue", () => {
  it("hands out each waiting key once, in the order first added", async () => {
    const queue = new WorkQueue();
    for (const key of ["a", "b", "a", "c", "b"]) queue.add(key);
    const keys = [await queue.get(), await queue.get(), await queue.get()];
    expect(keys).toEqual(["a", "b", "c"]);
  });

  it("never hands out a key being processed, and runs it again after done when re-added meanwhile", async () => {
    const queue = new WorkQueue();
    queue.add("a");
    expect(await queue.get()).toBe("a");
    queue.add("a");
    queue.add("b");
    expect(await queue.get()).toBe("b");
    queue.done("a");
    expect(await queue.get()).toBe("a");
  });

  it("is idle only when nothing waits and nothing is processing", async () => {
    const queue = new WorkQueue();
    let idle = false;
    queue.add("a");
    const waited = queue.idle().then(() => {
      idle = true;
    });
    const key = await queue.get();
    await Promise.resolve();
    expect(idle).toBe(false);
    queue.done(key ?? "");
    await waited;
    expect(idle).toBe(true);
  });

  it("backs off per key, doubling up to the ceiling, and starts over after forget", () => {
    vi.useFakeTimers();
    try {
      const queue = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 500 });
      const delays = [1, 2, 3, 4, 5].map(() => queue.retryLater("a"));
      expect(delays).toEqual([100, 200, 400, 500, 500]);
      expect(queue.retryLater("b")).toBe(100);
      queue.forget("a");
      expect(queue.retryLater("a")).toBe(100);
    } finally {
      vi.useRealTimers();
    }
  });

  it("adds a key again when its backoff has passed, and not when it was forgotten first", async () => {
    vi.useFakeTimers();
    try {
      const queue = new WorkQueue({ baseDelayMs: 100 });
      queue.retryLater("again");
      queue.retryLater("forgotten");
      queue.forget("forgotten");
      vi.advanceTimersByTime(100);
      expect(await queue.get()).toBe("again");
      queue.done("again");
      let next: string | undefined = "none yet";
      void queue.get().then((key) => {
        next = key;
      });
      vi.advanceTimersByTime(1_000);
      await Promise.resolve();
      expect(next).toBe("none yet");
    } finally {
      vi.useRealTimers();
    }
  });

  it("adds a key after a delay, the earlier of two delayed adds standing, and none once shut down", async () => {
    vi.useFakeTimers();
    try {
      const queue = new WorkQueue();
      queue.addAfter("drain", 500);
      queue.addAfter("drain", 2_000);
      expect(await queue.idle()).toBeUndefined();
      vi.advanceTimersByTime(499);
      let next: string | undefined = "none yet";
      void queue.get().then((key) => {
        next = key;
      });
      await Promise.resolve();
      expect(next).toBe("none yet");
      vi.advanceTimersByTime(1);
      await Promise.resolve();
      expect(next).toBe("drain");
      queue.done("drain");
      queue.addAfter("later", 100);
      queue.shutDown();
      vi.advanceTimersByTime(2_000);
      expect(await queue.get()).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers every waiting get with undefined once shut down, and drops pending retries", async () => {
    const queue = new WorkQueue({ baseDelayMs: 10 });
    const waiting = queue.get();
    queue.retryLater("a");
    queue.shutDown();
    expect(await waiting).toBeUndefined();
    queue.add("b");
    expect(await queue.get()).toBeUndefined();
  });
});
