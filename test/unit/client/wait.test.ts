import { describe, expect, it } from "vitest";
import { type Condition, type ObjectSource, waitFor } from "../../../sdk/client/wait";
import { WaitFailedError } from "../../../sdk/errors";

interface Thing {
  version: number;
  broken?: boolean;
}

/** Ready from version 3 on; failed when broken. */
const atLeastThree: Condition<Thing | undefined> = {
  describe: () => "version 3",
  observe: (thing) =>
    thing?.broken
      ? { state: "failed", reason: "Broken", message: "it broke" }
      : (thing?.version ?? 0) >= 3
        ? { state: "ready" }
        : { state: "pending", message: `at version ${thing?.version}` },
};

/** A source that looks again and again, as a poll does (without the pauses). */
function looking<T>(fetch: (name: string, signal: AbortSignal) => Promise<T>): ObjectSource<T> {
  return {
    async *observe(name, signal) {
      for (;;) {
        signal.throwIfAborted();
        yield await fetch(name, signal);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

/** Serves the versions in turn (the last one again once they run out). */
function scripted(versions: Thing[]) {
  let next = 0;
  const source = looking(async () => versions[Math.min(next++, versions.length - 1)]);
  return { source, fetches: () => next };
}

describe("the wait loop over a source that looks again and again", () => {
  it("asks the condition about every look until it holds, and returns that object", async () => {
    const { source, fetches } = scripted([{ version: 1 }, { version: 1 }, { version: 2 }, { version: 3 }]);
    const seen = await waitFor(source, "thing", atLeastThree, { timeoutMs: 60_000 });
    expect(seen).toEqual({ version: 3 });
    expect(fetches()).toBe(4);
  });

  it("stops at a failure with the condition's reason and the last object seen", async () => {
    const { source, fetches } = scripted([{ version: 1 }, { version: 2, broken: true }, { version: 3 }]);
    const error = await waitFor(source, "thing", atLeastThree, { timeoutMs: 60_000 }).catch((e) => e);
    expect(error).toBeInstanceOf(WaitFailedError);
    expect(error).toMatchObject({
      reason: "Broken",
      message: "it broke",
      lastSeen: { version: 2, broken: true },
    });
    expect(fetches()).toBe(2);
  });

  it("times out with what it last saw, and aborts the look in flight", async () => {
    let fetched = 0;
    let aborted = false;
    // The first look answers; the second hangs until the deadline aborts it (as the client's GET does).
    const source = looking<Thing>((_name, signal) =>
      fetched++ === 0
        ? Promise.resolve({ version: 1 })
        : new Promise((_, reject) =>
            signal.addEventListener("abort", () => {
              aborted = true;
              reject(signal.reason);
            }),
          ),
    );
    const error = await waitFor(source, "thing", atLeastThree, { timeoutMs: 30 }).catch((e) => e);
    expect(error).toBeInstanceOf(WaitFailedError);
    expect(error).toMatchObject({ reason: "Timeout", lastSeen: { version: 1 } });
    expect(error.message).toContain("waiting for version 3: at version 1");
    expect(aborted).toBe(true);
  });
});

describe("the wait loop over an event source", () => {
  it("needs no polling: a source that yields on each change ends the wait at the change", async () => {
    // What a watch would be: the current object, then one yield per change.
    const changes: Thing[] = [{ version: 1 }, { version: 2 }, { version: 3 }];
    let stoppedListening = false;
    const watch: ObjectSource<Thing> = {
      async *observe(_name, signal) {
        try {
          for (const change of changes) {
            signal.throwIfAborted();
            yield change;
          }
          await new Promise(() => {});
        } finally {
          stoppedListening = true;
        }
      },
    };
    expect(await waitFor(watch, "thing", atLeastThree, { timeoutMs: 60_000 })).toEqual({ version: 3 });
    expect(stoppedListening).toBe(true);
  });

  it("times out when no change comes", async () => {
    const silent: ObjectSource<Thing> = {
      async *observe(_name, signal) {
        yield { version: 1 };
        await new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      },
    };
    const error = await waitFor(silent, "thing", atLeastThree, { timeoutMs: 20 }).catch((e) => e);
    expect(error).toMatchObject({ reason: "Timeout", lastSeen: { version: 1 } });
  });
});
