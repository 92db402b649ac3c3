import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AttemptOutcome,
  DEFAULT_RETRY,
  isEtcdUnavailable,
  type RetryOptions,
  retryDelay,
} from "../../../sdk/client/retry";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const options: RetryOptions = { ...DEFAULT_RETRY, maxRetries: 10, random: () => 0.5, now: () => NOW };

const answered = (statusCode: number, retryAfter?: string): AttemptOutcome => ({
  type: "response",
  statusCode,
  retryAfter,
});
const refused: AttemptOutcome = { type: "transport", transient: true, mayHaveReachedServer: false };
const lost: AttemptOutcome = { type: "transport", transient: true, mayHaveReachedServer: true };
const badCertificate: AttemptOutcome = { type: "transport", transient: false, mayHaveReachedServer: false };

const GET = { method: "GET" };
const POST = { method: "POST" };

describe("Retry-After", () => {
  it("waits the number of seconds the server asked for", () => {
    expect(retryDelay(GET, answered(503, "3"), 0, options)).toBe(3000);
  });

  it("waits until an HTTP-date the server named", () => {
    const inSevenSeconds = new Date(NOW + 7000).toUTCString();
    expect(retryDelay(GET, answered(429, inSevenSeconds), 0, options)).toBe(7000);
  });

  it("retries at once when the HTTP-date has passed", () => {
    expect(retryDelay(GET, answered(429, new Date(NOW - 5000).toUTCString()), 0, options)).toBe(0);
  });

  it("falls back to backoff when the hint is longer than maxRetryAfterMs", () => {
    expect(retryDelay(GET, answered(503, "3600"), 0, options)).toBe(250);
  });

  it("falls back to backoff when the hint cannot be read", () => {
    expect(retryDelay(GET, answered(503, "soon"), 0, options)).toBe(250);
  });
});

describe("backoff", () => {
  it("doubles with each retry up to the cap", () => {
    const delays = [0, 1, 2, 3, 4, 5, 6].map((n) => retryDelay(GET, answered(503), n, options));
    // random() = 0.5 picks the middle of [0, min(8000, 500 * 2^n)).
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 4000, 4000]);
  });

  it("stays within [0, min(cap, base * 2^n)) for any jitter (full jitter)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const delay = retryDelay(GET, lost, n, {
            ...options,
            maxRetries: 50,
            random: () => r,
          });
          const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** n);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(ceiling);
        },
      ),
    );
  });

  it("stops once maxRetries retries were made", () => {
    const limited = { ...options, maxRetries: 2 };
    expect(retryDelay(GET, answered(503), 1, limited)).toBeDefined();
    expect(retryDelay(GET, answered(503), 2, limited)).toBeUndefined();
    expect(retryDelay(GET, refused, 2, limited)).toBeUndefined();
  });
});

describe("what is retried", () => {
  it.each([429, 502, 503, 504])("retries a GET answered %i", (code) => {
    expect(retryDelay(GET, answered(code), 0, options)).toBeDefined();
  });

  it.each([400, 401, 404, 409, 410, 415, 422, 500, 501])("does not retry an answer %i", (code) => {
    expect(retryDelay(GET, answered(code), 0, options)).toBeUndefined();
  });

  it.each(["GET", "PUT", "DELETE"])("retries an idempotent %s after a lost answer or a 503", (method) => {
    expect(retryDelay({ method }, lost, 0, options)).toBeDefined();
    expect(retryDelay({ method }, answered(503), 0, options)).toBeDefined();
  });

  it("does not repeat a POST that may have reached the server", () => {
    expect(retryDelay(POST, lost, 0, options)).toBeUndefined();
    expect(retryDelay(POST, answered(503), 0, options)).toBeUndefined();
    expect(retryDelay(POST, answered(429), 0, options)).toBeUndefined();
  });

  it("repeats any request that never reached the server", () => {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      expect(retryDelay({ method }, refused, 0, options)).toBeDefined();
    }
  });

  it("repeats a POST whose replay is recognised as its own create", () => {
    const create = { method: "POST", recognisesOwnCreate: true };
    expect(retryDelay(create, lost, 0, options)).toBeDefined();
    expect(retryDelay(create, answered(503), 0, options)).toBeDefined();
  });

  it("repeats a merge patch and a server-side apply (idempotent) but not a JSON patch after a lost answer", () => {
    const merge = { method: "PATCH", contentType: "application/merge-patch+json" };
    const apply = { method: "PATCH", contentType: "application/apply-patch+yaml" };
    const json = { method: "PATCH", contentType: "application/json-patch+json" };
    expect(retryDelay(merge, lost, 0, options)).toBeDefined();
    expect(retryDelay(apply, lost, 0, options)).toBeDefined();
    expect(retryDelay(apply, answered(503), 0, options)).toBeDefined();
    expect(retryDelay(json, lost, 0, options)).toBeUndefined();
    expect(retryDelay(json, answered(503), 0, options)).toBeUndefined();
  });

  it("takes kube-apiserver's 500 for etcd not answering as a lost answer: repeated only when replay-safe", () => {
    const etcd: AttemptOutcome = { type: "response", statusCode: 500, etcdUnavailable: true };
    expect(retryDelay({ method: "PUT" }, etcd, 0, options)).toBeDefined();
    expect(retryDelay({ ...POST, recognisesOwnCreate: true }, etcd, 0, options)).toBeDefined();
    expect(retryDelay(POST, etcd, 0, options)).toBeUndefined();
    expect(
      retryDelay({ method: "PATCH", contentType: "application/json-patch+json" }, etcd, 0, options),
    ).toBeUndefined();
  });

  it.each([
    ["etcdserver: request timed out", true],
    ["etcdserver: leader changed", true],
    ["etcdserver: no leader", true],
    ["etcdserver: mvcc: database space exceeded", false],
    ["Internal error occurred: failed calling webhook", false],
  ])("reads a 500 saying %j as etcd not answering: %s", (message, expected) => {
    const body = JSON.stringify({ kind: "Status", code: 500, reason: "InternalError", message });
    expect(isEtcdUnavailable(500, body)).toBe(expected);
    expect(isEtcdUnavailable(422, body)).toBe(false);
  });

  it("never repeats a failure that another attempt cannot fix (a refused certificate)", () => {
    expect(retryDelay(GET, badCertificate, 0, options)).toBeUndefined();
  });
});
