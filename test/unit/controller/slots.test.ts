// The build slots' queue: a waiting build is told how many builds wait ahead of it, at once and then only
// when that number changes (a build ahead got a slot, or stopped waiting).
import { describe, expect, it } from "vitest";
import { Slots } from "../../../builder/git/slots";

describe("Slots", () => {
  it("tells each waiting build its place when it queues and whenever the place changes", async () => {
    const slots = new Slots(1);
    const told: Record<string, number[]> = { b: [], c: [], d: [] };
    const listen = (name: string) => (ahead: number) => told[name]?.push(ahead);
    const release = await slots.acquire(new AbortController().signal);
    const b = slots.acquire(new AbortController().signal, listen("b"));
    const stopC = new AbortController();
    const c = slots.acquire(stopC.signal, listen("c"));
    const d = slots.acquire(new AbortController().signal, listen("d"));
    // Told synchronously, before acquire returns.
    expect(told).toEqual({ b: [0], c: [1], d: [2] });

    stopC.abort(new Error("the Service was deleted"));
    await expect(c).rejects.toThrow("the Service was deleted");
    // Only those behind the one that left moved up.
    expect(told).toEqual({ b: [0], c: [1], d: [2, 1] });

    release();
    const releaseB = await b;
    expect(told).toEqual({ b: [0], c: [1], d: [2, 1, 0] });
    releaseB();
    releaseB(); // A second release frees nothing more.
    (await d)();
    expect(told.d).toEqual([2, 1, 0]);
  });

  it("tells nothing to a build that gets a slot at once", async () => {
    const slots = new Slots(2);
    const told: number[] = [];
    await slots.acquire(new AbortController().signal, (ahead) => told.push(ahead));
    await slots.acquire(new AbortController().signal, (ahead) => told.push(ahead));
    expect(told).toEqual([]);
  });
});
