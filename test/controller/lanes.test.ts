// The registry lanes: per host a bounded number of calls at once, equal calls shared, a deadline per call,
// a host that keeps failing backed off as a host, and nothing left running once stopped.
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { HostLanes, type LaneCall, LanesStopped } from "../../controller/lanes";

type Answer = "ok" | "failed" | "late";

let stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops) stop.abort();
  stops = [];
});

function lanes(
  options: ConstructorParameters<typeof HostLanes>[0] extends infer O ? Omit<O, "signal"> : never,
) {
  const stop = new AbortController();
  stops.push(stop);
  return { lanes: new HostLanes({ ...options, signal: stop.signal }), stop };
}

/** A call whose answer the test gives (`release`), counting how many of its host's calls run at once. */
function gate() {
  const running = new Map<string, number>();
  const most = new Map<string, number>();
  const releases: ((answer: Answer) => void)[] = [];
  const byKey = new Map<string, (answer: Answer) => void>();
  let started = 0;
  const call = (host: string, key: string): LaneCall<Answer> => ({
    host,
    key,
    what: key,
    work: (signal) =>
      new Promise<Answer>((resolve, reject) => {
        started++;
        running.set(host, (running.get(host) ?? 0) + 1);
        most.set(host, Math.max(most.get(host) ?? 0, running.get(host) ?? 0));
        const done = (answer: Answer) => {
          running.set(host, (running.get(host) ?? 1) - 1);
          resolve(answer);
        };
        releases.push(done);
        byKey.set(key, done);
        signal.addEventListener("abort", () => {
          running.set(host, (running.get(host) ?? 1) - 1);
          reject(signal.reason);
        });
      }),
    onDeadline: () => "late",
    hostFailed: (answer) => answer !== "ok",
  });
  return { call, releases, byKey, most, started: () => started };
}

describe("HostLanes", () => {
  it("runs at most perHost calls of one host at once, and another host's calls beside them", async () => {
    const { lanes: lane } = lanes({ perHost: 2 });
    const { call, byKey, most, started } = gate();
    const calls = Array.from({ length: 6 }, (_, index) => lane.run(call("busy.example", `h${index}`)));
    const other = lane.run(call("fine.example", "f"));
    await sleep(10);
    expect(started()).toBe(3);
    expect(lane.wait("h5")).toMatchObject({ host: "busy.example", state: "queued", ahead: 3 });
    expect(lane.wait("h0")).toMatchObject({ state: "asking" });
    byKey.get("f")?.("ok");
    expect(await other).toBe("ok");
    for (let index = 0; index < 6; index++) {
      await sleep(5);
      byKey.get(`h${index}`)?.("ok");
      expect(await calls[index]).toBe("ok");
    }
    expect(most.get("busy.example")).toBe(2);
    expect(lane.isIdle()).toBe(true);
  });

  it("shares one call among equal keys", async () => {
    const { lanes: lane } = lanes({});
    const { call, releases, started } = gate();
    const first = lane.run(call("r.example", "same"));
    const second = lane.run(call("r.example", "same"));
    await sleep(5);
    expect(started()).toBe(1);
    releases[0]?.("ok");
    expect(await Promise.all([first, second])).toEqual(["ok", "ok"]);
    expect(lane.isIdle()).toBe(true);
  });

  it("answers a call past its deadline with onDeadline, and frees its slot", async () => {
    const { lanes: lane } = lanes({ perHost: 1, deadlineMs: 50, hostBackoffBaseMs: 1 });
    const { call, releases } = gate();
    const late = lane.run(call("slow.example", "a"));
    const next = lane.run(call("slow.example", "b"));
    expect(await late).toBe("late");
    await sleep(20);
    releases[1]?.("ok");
    expect(await next).toBe("ok");
  });

  it("backs off a failing host as a host: its queued calls wait, one answer ends the backoff", async () => {
    const { lanes: lane } = lanes({ perHost: 1, hostBackoffBaseMs: 300 });
    const { call, releases, started } = gate();
    const failed = lane.run(call("down.example", "a"));
    await sleep(5);
    releases[0]?.("failed");
    expect(await failed).toBe("failed");
    const waiting = lane.run(call("down.example", "b"));
    await sleep(100);
    expect(started()).toBe(1);
    expect(lane.wait("b")).toMatchObject({ state: "backedOff", failures: 1 });
    // Another host is not held up by it.
    const elsewhere = lane.run(call("up.example", "c"));
    await sleep(5);
    expect(started()).toBe(2);
    releases[1]?.("ok");
    expect(await elsewhere).toBe("ok");
    await sleep(300);
    expect(started()).toBe(3);
    releases[2]?.("ok");
    expect(await waiting).toBe("ok");
    // Answered: no backoff any more.
    const after = lane.run(call("down.example", "d"));
    await sleep(5);
    expect(started()).toBe(4);
    releases[3]?.("ok");
    await after;
  });

  it("stops: calls under way and queued reject with LanesStopped, and it is idle", async () => {
    const { lanes: lane, stop } = lanes({ perHost: 1 });
    const { call } = gate();
    const running = lane.run(call("x.example", "a"));
    const queued = lane.run(call("x.example", "b"));
    const idle = lane.idle();
    stop.abort();
    await expect(running).rejects.toBeInstanceOf(LanesStopped);
    await idle;
    expect(lane.isIdle()).toBe(true);
    await expect(lane.run(call("x.example", "c"))).rejects.toBeInstanceOf(LanesStopped);
    void queued;
  });
});
