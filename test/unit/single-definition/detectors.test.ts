// Each detector of ./detectors.ts catches the second copies this repository used to have, and passes over
// what a file may do without declaring anything again (imports, re-exports, uses, comments).
import { describe, expect, it } from "vitest";
import { DETECTORS, parse } from "./detectors";

/** Excerpts of the second copies this repository had, and where they were. */
const FORMER_COPIES: { detector: keyof typeof DETECTORS; file: string; text: string }[] = [
  {
    detector: "reasonCodePairs",
    file: "server/errors.ts",
    text: `export const REASONS = { BadRequest: 400, NotFound: 404, AlreadyExists: 409, Conflict: 409 } as const;`,
  },
  {
    detector: "reasonCodePairs",
    file: "sdk/errors/http-errors.ts",
    text: `const BY_CODE = new Map([[404, { reason: "NotFound", type: NotFoundError }]]);`,
  },
  {
    detector: "reasonCodePairs",
    file: "sdk/errors/http-errors.ts",
    text: `function f(statusCode: number, status: { reason: string }) {
      if (statusCode === 409 && status.reason === "AlreadyExists") return 1;
    }`,
  },
  {
    detector: "reasonCodePairs",
    file: "server/http/errors.ts",
    text: `export class NotFoundError extends Error {}`,
  },
  {
    detector: "statusTypes",
    file: "server/errors.ts",
    text: `export interface Status { kind: "Status"; code: number }
      export interface StatusCause { reason: string; message: string; field?: string }`,
  },
  {
    detector: "statusTypes",
    file: "server/errors.ts",
    text: `export function failureStatus(reason: string, message: string) {
      return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code: 500 };
    }`,
  },
  {
    detector: "retryPolicies",
    file: "builder/oci/retry.ts",
    text: `export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
      if (value === undefined || value.trim() === "") return undefined;
      if (/^\\d+$/.test(value.trim())) return Number(value) * 1000;
      const date = Date.parse(value);
      return Number.isNaN(date) ? undefined : Math.max(0, date - now);
    }`,
  },
  {
    detector: "retryPolicies",
    file: "sdk/client/retry.ts",
    text: `function hint(header: string, now: number): number {
      return /^\\d+$/.test(header) ? Number(header) * 1000 : Date.parse(header) - now;
    }`,
  },
  {
    detector: "retryPolicies",
    file: "builder/oci/retry.ts",
    text: `export function retryDelay(retry: number): number {
      const ceiling = Math.min(10_000, 250 * 2 ** retry);
      return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
    }`,
  },
  {
    detector: "retryPolicies",
    file: "controller/queue.ts",
    text: `class WorkQueue {
      retryLater(key: string): number {
        const failures = this.failures.get(key) ?? 0;
        return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** failures);
      }
    }`,
  },
  {
    detector: "retryPolicies",
    file: "controller/lanes.ts",
    text: `const settle = (host: Host) => Math.min(this.maxMs, this.baseMs * 2 ** (host.failures - 1));`,
  },
  {
    detector: "recordChecks",
    file: "server/records.ts",
    text: `export function isRecord(value: unknown): value is Record<string, unknown> {
      return typeof value === "object" && value !== null && !Array.isArray(value);
    }`,
  },
  {
    detector: "recordChecks",
    file: "policies/resources.ts",
    text: `const looksLikeObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);`,
  },
  {
    detector: "redactions",
    file: "builder/oci/failure.ts",
    text: `const REDACTED = "<redacted>";`,
  },
  {
    detector: "metadataChecks",
    file: "admission/envelope.ts",
    text: `const DNS1123_LABEL = "[a-z0-9](?:[-a-z0-9]*[a-z0-9])?";
      function nameProblem(name: string) { return name; }`,
  },
];

/** What a file may do without declaring anything again. */
const IMPORTS_ONLY = `
  import { isRecord } from "../records";
  import { isRecord as isJsonObject } from "../../sdk/shared/records";
  import { parseRetryAfter, retryWait } from "../../sdk/shared/retry";
  import { REASONS, type Status, type StatusCause } from "../../sdk/errors";
  import { redact } from "../../sdk/errors/redact";
  import { metadataIssues, nameProblem } from "../../sdk/schema/metadata";
  export { isRecord } from "../sdk/shared/records";
  export type { Status, StatusCause, StatusDetails } from "../sdk/errors/status";
  export { failureStatus, successStatus } from "../sdk/errors/reasons";
  // A comment may say that AlreadyExists is 409, or quote "<redacted>" and Retry-After: 120.
  const conflictCode = REASONS.AlreadyExists.code;
  const wait = retryWait(0, "3", policy);
  const problems = metadataIssues({ name: "x" }).map((issue) => issue.message);
  const cleaned = redact(message, secrets);
`;

describe("the detectors", () => {
  it.each(FORMER_COPIES.map((copy) => [copy.detector, copy.file, copy] as const))(
    "%s finds the former copy in %s",
    (_, __, { detector, file, text }) => {
      expect(DETECTORS[detector](parse(file, text))).not.toEqual([]);
    },
  );

  it.each(Object.keys(DETECTORS))("%s passes over imports, re-exports, uses and comments", (name) => {
    const detect = DETECTORS[name as keyof typeof DETECTORS];
    expect(detect(parse("server/example.ts", IMPORTS_ONLY))).toEqual([]);
  });
});
