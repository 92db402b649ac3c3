import { describe, expect, it } from "vitest";
import { type AttemptOutcome, DEFAULT_RETRY, type RetryOptions, retryDelay } from "../../../sdk/client/retry";

// Past maxRetries, the failures of a restarting server are retried for up to restartBudgetMs of waits, for a
// server that answered this client before, and for requests that are safe to send again.

const options: RetryOptions = { ...DEFAULT_RETRY, maxRetries: 3, random: () => 0.5 };
const refused: AttemptOutcome = { type: "transport", transient: true, mayHaveReachedServer: false };
const lost: AttemptOutcome = { type: "transport", transient: true, mayHaveReachedServer: true };
const unavailable: AttemptOutcome = { type: "response", statusCode: 503 };
const etcdElecting: AttemptOutcome = { type: "response", statusCode: 500, etcdUnavailable: true };
const GET = { method: "GET" };
const POST = { method: "POST" };
const up = (waitedMs: number) => ({ serverAnsweredBefore: true, waitedMs });

describe("riding through a restart", () => {
  it("retries past maxRetries a server that answered before, with waits under restartMaxDelayMs", () => {
    for (const outcome of [refused, lost, unavailable, etcdElecting]) {
      const wait = retryDelay(GET, outcome, 10, options, up(20_000));
      expect(wait).toBe(options.restartMaxDelayMs / 2);
    }
  });

  it("stops once the waits reach restartBudgetMs, and waits no longer than what is left", () => {
    expect(retryDelay(GET, refused, 10, options, up(options.restartBudgetMs))).toBeUndefined();
    expect(retryDelay(GET, refused, 10, options, up(options.restartBudgetMs - 200))).toBe(200);
  });

  it("keeps maxRetries for a server that never answered (a wrong address), and for maxRetries 0", () => {
    const never = { serverAnsweredBefore: false, waitedMs: 0 };
    expect(retryDelay(GET, refused, 3, options, never)).toBeUndefined();
    expect(retryDelay(GET, refused, 0, { ...options, maxRetries: 0 }, up(0))).toBeUndefined();
    expect(retryDelay(GET, refused, 3, { ...options, restartBudgetMs: 0 }, up(0))).toBeUndefined();
  });

  it("repeats a create only when it never reached the server", () => {
    expect(retryDelay(POST, refused, 5, options, up(0))).toBeDefined();
    expect(retryDelay(POST, lost, 5, options, up(0))).toBeUndefined();
    expect(retryDelay(POST, unavailable, 5, options, up(0))).toBeUndefined();
    expect(retryDelay({ ...POST, recognisesOwnCreate: true }, lost, 5, options, up(0))).toBeDefined();
  });

  it("does not ride through what a restart does not give (a 500, a refused certificate)", () => {
    expect(retryDelay(GET, { type: "response", statusCode: 500 }, 5, options, up(0))).toBeUndefined();
    const certificate: AttemptOutcome = { type: "transport", transient: false, mayHaveReachedServer: false };
    expect(retryDelay(GET, certificate, 5, options, up(0))).toBeUndefined();
  });
});
