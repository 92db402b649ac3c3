import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OCI_RETRY } from "../../../builder/oci/retry";
import { DEFAULT_RETRY } from "../../../sdk/client/retry";
import {
  backoff,
  parseRetryAfter,
  type RetryPolicy,
  realSleep,
  retryWait,
  withOverrides,
} from "../../../sdk/shared/retry";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const policy: RetryPolicy = { ...DEFAULT_RETRY, random: () => 0.5, now: () => NOW };

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP-dates, in ms from now", () => {
    expect(parseRetryAfter(" 3 ", NOW)).toBe(3000);
    expect(parseRetryAfter(new Date(NOW + 7000).toUTCString(), NOW)).toBe(7000);
    expect(parseRetryAfter(new Date(NOW - 7000).toUTCString(), NOW)).toBe(0);
  });

  it.each([undefined, "", "  ", "soon", "-1", "1.5"])("gives undefined for %j", (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe("retryWait", () => {
  it("takes the server's hint first, then backs off", () => {
    expect(retryWait(0, "2", policy)).toBe(2000);
    expect(retryWait(2, undefined, policy)).toBe(1000);
  });

  it("ignores a hint beyond the cap with `backoff`, waits the cap with `cap`", () => {
    expect(retryWait(0, "3600", policy)).toBe(250);
    expect(retryWait(0, "3600", { ...policy, longRetryAfter: "cap" })).toBe(policy.maxRetryAfterMs);
  });

  it("stops once maxRetries retries were made", () => {
    expect(retryWait(policy.maxRetries - 1, undefined, policy)).toBeDefined();
    expect(retryWait(policy.maxRetries, "1", policy)).toBeUndefined();
  });
});

describe("backoff", () => {
  it("stays below the step for the largest random() value", () => {
    const highest = { ...policy, random: () => 1 - 2 ** -53 };
    expect(backoff(0, { ...highest, jitter: "equal" })).toBe(499);
    expect(backoff(0, highest)).toBe(499);
  });

  it("keeps full jitter in [0, step) and equal jitter in [step/2, step)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          for (const jitter of ["full", "equal"] as const) {
            const tuned = { ...policy, jitter, random: () => r };
            const step = Math.min(tuned.maxDelayMs, tuned.baseDelayMs * 2 ** n);
            const wait = backoff(n, tuned);
            expect(wait).toBeGreaterThanOrEqual(jitter === "equal" ? step / 2 - 1 : 0);
            expect(wait).toBeLessThan(step);
          }
        },
      ),
    );
  });
});

describe("the callers' parameters", () => {
  it("keep the client's and the controller's settings", () => {
    expect(DEFAULT_RETRY).toMatchObject({
      maxRetries: 3,
      baseDelayMs: 500,
      maxDelayMs: 8_000,
      jitter: "full",
      maxRetryAfterMs: 60_000,
      longRetryAfter: "backoff",
    });
    expect(OCI_RETRY).toMatchObject({
      maxRetries: 3,
      baseDelayMs: 250,
      maxDelayMs: 10_000,
      jitter: "equal",
      maxRetryAfterMs: 30_000,
      longRetryAfter: "cap",
    });
  });

  it("are overridden per call by the values given, not by undefined ones", () => {
    expect(withOverrides(policy, { maxRetries: 7, baseDelayMs: undefined })).toEqual({
      ...policy,
      maxRetries: 7,
    });
  });
});

describe("realSleep", () => {
  it("rejects with the signal's reason when aborted", async () => {
    const reason = new Error("stop");
    const controller = new AbortController();
    const sleeping = realSleep(60_000, controller.signal);
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
  });
});
