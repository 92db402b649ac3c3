// A wait's progress for people: status lines only when they change, at most one a second (the newest held
// back), the outcome once and only after a status line, nothing after a failure; and the lines the conditions
// derive from what the server writes.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { buildProgress, deleted, serviceAccepted, settled } from "../../../provider/await/conditions";
import { PROGRESS_INTERVAL_MS, WaitProgress } from "../../../provider/wait-progress";
import type { ObjectWithStatus } from "../../../sdk/client/types";
import type { Observation } from "../../../sdk/client/wait";

const pending = (message: string): Observation => ({ state: "pending", message });

function recorder() {
  const lines: string[] = [];
  const progress = new WaitProgress({
    status: (text) => lines.push(`status: ${text}`),
    final: (text) => lines.push(`final: ${text}`),
  });
  return { lines, progress };
}

describe("WaitProgress", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows the first pending look at once, then a change at most once per interval, the newest one", () => {
    const { lines, progress } = recorder();
    progress.observe(pending("waiting for the controller to observe generation 1"));
    expect(lines).toEqual(["status: waiting for the controller to observe generation 1"]);
    // Looks every 50 ms: unchanged looks show nothing; changes within the interval wait, and only the newest shows.
    vi.advanceTimersByTime(50);
    progress.observe(pending("waiting for the controller to observe generation 1"));
    vi.advanceTimersByTime(50);
    progress.observe(pending("build of main queued"));
    vi.advanceTimersByTime(50);
    progress.observe(pending("building main: fetching (0s)"));
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS - 150);
    expect(lines).toEqual([
      "status: waiting for the controller to observe generation 1",
      "status: building main: fetching (0s)",
    ]);
    // A change long after the last line shows at once.
    vi.advanceTimersByTime(3 * PROGRESS_INTERVAL_MS);
    progress.observe(pending("building main@1a2b3c4 (3s)"));
    expect(lines.at(-1)).toBe("status: building main@1a2b3c4 (3s)");
  });

  it("never shows more than one line per interval however often the message changes", () => {
    const times: number[] = [];
    const progress = new WaitProgress({ status: () => times.push(Date.now()), final: () => undefined });
    const start = Date.now();
    for (let tick = 0; tick < 100; tick++) {
      progress.observe(pending(`look ${tick}`));
      vi.advanceTimersByTime(50);
    }
    // 5 s of looks every 50 ms, each a new message: the first at once, then one line a second.
    expect(times.map((time) => time - start)).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
  });

  it("drops a held change that the next look takes back", () => {
    const { lines, progress } = recorder();
    progress.observe(pending("a"));
    progress.observe(pending("b"));
    progress.observe(pending("a"));
    vi.advanceTimersByTime(5 * PROGRESS_INTERVAL_MS);
    expect(lines).toEqual(["status: a"]);
  });

  it("reports the outcome once, in place of a held line, after a wait that showed a status line", () => {
    const { lines, progress } = recorder();
    progress.observe(pending("building main@1a2b3c4 (1s)"));
    progress.observe(pending("building main@1a2b3c4 (2s)"));
    progress.observe({ state: "ready", message: "minted api-3f9c1a2b3c; live api-3f9c1a2b3c" });
    progress.observe({ state: "ready", message: "again" });
    vi.advanceTimersByTime(5 * PROGRESS_INTERVAL_MS);
    expect(lines).toEqual([
      "status: building main@1a2b3c4 (1s)",
      "final: minted api-3f9c1a2b3c; live api-3f9c1a2b3c",
    ]);
  });

  it("shows nothing when no wait happened (the first look was ready), nor after a failure or the end", () => {
    const ready = recorder();
    ready.progress.observe({ state: "ready", message: "minted api-3f9c1a2b3c" });
    expect(ready.lines).toEqual([]);

    const failed = recorder();
    failed.progress.observe(pending("build of main queued"));
    failed.progress.observe(pending("building main: fetching (0s)"));
    failed.progress.observe({ state: "failed", reason: "BuildFailed", message: "the build failed" });
    vi.advanceTimersByTime(5 * PROGRESS_INTERVAL_MS);
    expect(failed.lines).toEqual(["status: build of main queued"]);

    const timedOut = recorder();
    timedOut.progress.observe(pending("draining for 1s (the server's grace period)"));
    timedOut.progress.observe(pending("draining for 2s (the server's grace period)"));
    timedOut.progress.end();
    vi.advanceTimersByTime(5 * PROGRESS_INTERVAL_MS);
    timedOut.progress.observe(pending("draining for 9s (the server's grace period)"));
    expect(timedOut.lines).toEqual(["status: draining for 1s (the server's grace period)"]);
  });
});

describe("the lines the conditions derive from the object", () => {
  const START = Date.parse("2026-11-26T10:00:00Z");
  const at = (seconds: number) => () => START + seconds * 1000;
  const COMMIT = "1a2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5";

  it("a git-sourced Service: generation, queued build (with its place), fetch, build with its commit, then what was minted", () => {
    const written: ObjectWithStatus = { metadata: { name: "api", generation: 3 }, status: {} };
    const condition = serviceAccepted(written, at(20));
    const awaitingBuild = (build: object): ObjectWithStatus => ({
      metadata: { name: "api", generation: 3 },
      status: {
        observedGeneration: 3,
        conditions: [
          {
            type: "Accepted",
            status: "False",
            reason: "AwaitingBuild",
            message: "no revision until the first build",
            lastTransitionTime: "2026-11-26T10:00:00Z",
            observedGeneration: 3,
          },
        ],
        build,
      } as ObjectWithStatus["status"],
    });
    expect(condition.observe({ ...written, status: { observedGeneration: 2 } })).toEqual(
      pending("waiting for the controller to observe generation 3"),
    );
    // A server that does not say the queue's length: queued, no more.
    expect(condition.observe(awaitingBuild({ phase: "Pending", branch: "main" }))).toEqual(
      pending("build of main queued"),
    );
    expect(condition.observe(awaitingBuild({ phase: "Pending", branch: "main", ahead: 2 }))).toEqual(
      pending("build of main queued, 2 ahead"),
    );
    expect(
      condition.observe(awaitingBuild({ phase: "Pending", branch: "main", commit: COMMIT, ahead: 0 })),
    ).toEqual(pending("build of main@1a2b3c4 queued, next in line"));
    const startTime = "2026-11-26T10:00:00Z";
    expect(condition.observe(awaitingBuild({ phase: "Running", branch: "main", startTime }))).toEqual(
      pending("building main: fetching (20s)"),
    );
    expect(
      condition.observe(awaitingBuild({ phase: "Running", branch: "main", startTime, commit: COMMIT })),
    ).toEqual(pending("building main@1a2b3c4 (20s)"));
    // Without a build in status, the controller's own message.
    expect(condition.observe(awaitingBuild(undefined as never))).toEqual(
      pending("no revision until the first build"),
    );
    expect(
      settled({
        latestRevision: "api-3f9c1a2b3c",
        liveRevision: "api-3f9c1a2b3c",
        lastBuild: { phase: "Succeeded", branch: "main", commit: COMMIT },
      }),
    ).toBe("built main@1a2b3c4; minted api-3f9c1a2b3c; live api-3f9c1a2b3c");
    expect(settled({ latestRevision: "api-3f9c1a2b3c" })).toBe("minted api-3f9c1a2b3c");
    expect(settled({})).toBeUndefined();
    expect(buildProgress({ build: { phase: "Succeeded", branch: "main" } }, START)).toBeUndefined();
  });

  it("a git source whose repository cannot be fetched ends the wait with SourceReady's message", () => {
    const written: ObjectWithStatus = { metadata: { name: "api", generation: 2 }, status: {} };
    const condition = serviceAccepted(written, at(20));
    const entry = (type: string, status: string, reason: string, message: string, generation = 2) => ({
      type,
      status,
      reason,
      message,
      lastTransitionTime: "2026-11-26T10:00:00Z",
      observedGeneration: generation,
    });
    const awaiting = entry("Accepted", "False", "AwaitingBuild", "no revision until the first build");
    const observed = (source: object): ObjectWithStatus => ({
      metadata: { name: "api", generation: 2 },
      status: { observedGeneration: 2, conditions: [awaiting, source] } as ObjectWithStatus["status"],
    });
    const unreachable = "cannot fetch the repository: connection refused";
    expect(condition.observe(observed(entry("SourceReady", "False", "FetchFailed", unreachable)))).toEqual({
      state: "failed",
      reason: "FetchFailed",
      message: unreachable,
    });
    // Not yet fetched, or a verdict on an older generation: still waiting.
    const first = entry("SourceReady", "Unknown", "AwaitingFetch", "no fetch has finished yet");
    expect(condition.observe(observed(first))).toEqual(pending("no revision until the first build"));
    const older = entry("SourceReady", "False", "FetchFailed", unreachable, 1);
    expect(condition.observe(observed(older))).toEqual(pending("no revision until the first build"));
  });

  it("a delete: draining, dependents, finalizers, and how it ended", () => {
    const terminating = (metadata: Partial<ObjectWithStatus["metadata"]>): ObjectWithStatus => ({
      metadata: { name: "edge", uid: "u1", deletionTimestamp: "2026-11-26T10:00:00Z", ...metadata },
    });
    const drain = deleted("u1", at(3));
    const held = { finalizers: ["core.example.dev/drain"], deletionGracePeriodSeconds: 0 };
    expect(drain.observe(terminating(held))).toEqual(
      pending("draining for 3s (the controller removes core.example.dev/drain once the drain is over)"),
    );
    expect(
      drain.observe(terminating({ finalizers: ["core.example.dev/drain", "example.dev/backup"] })),
    ).toEqual(
      pending(
        "draining for 3s (the controller removes core.example.dev/drain once the drain is over); then waiting for example.dev/backup",
      ),
    );
    expect(drain.observe(undefined)).toEqual({ state: "ready", message: "drained for 3s; deleted" });

    const owner = deleted("u1", at(2));
    expect(owner.observe(terminating({ finalizers: ["foregroundDeletion"] }))).toEqual(
      pending("waiting for its dependents to be deleted first (foregroundDeletion)"),
    );
    expect(owner.observe(terminating({ finalizers: ["example.dev/drain"] }))).toEqual(
      pending("waiting for its finalizers: example.dev/drain"),
    );
    expect(owner.observe(terminating({}))).toEqual(pending("terminating"));
    expect(owner.observe({ metadata: { name: "edge", uid: "another" } })).toEqual({
      state: "ready",
      message: "deleted after 2s",
    });
    // Gone at the first look: no wait, nothing to say.
    expect(deleted("u1").observe(undefined)).toEqual({ state: "ready" });
  });
});
