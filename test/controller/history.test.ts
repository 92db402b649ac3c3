import { describe, expect, it } from "vitest";
import { revisionsToPrune } from "../../controller/history";
import type { ApiObject } from "../../sdk/client/types";

/** Revisions r1..rN created in that order; r1 and r2 share a second, told apart by resourceVersion. */
function revisions(count: number): ApiObject[] {
  return Array.from({ length: count }, (_, index) => ({
    apiVersion: "compute.example.dev/v1alpha1",
    kind: "ServiceRevision" as const,
    metadata: {
      name: `r${index + 1}`,
      creationTimestamp: `2026-01-01T00:00:0${Math.max(0, index - 1)}Z`,
      resourceVersion: String(10 + index),
    },
    spec: {},
  }));
}

describe("revisionsToPrune", () => {
  it("deletes nothing while the count is within the limit", () => {
    expect(revisionsToPrune(revisions(3), 3, new Set())).toEqual([]);
  });

  it("deletes the oldest first, by creation time then resourceVersion", () => {
    expect(revisionsToPrune(revisions(5).reverse(), 2, new Set())).toEqual(["r1", "r2", "r3"]);
  });

  it("never deletes a protected revision, and takes the next oldest instead", () => {
    expect(revisionsToPrune(revisions(5), 3, new Set(["r1", "r5"]))).toEqual(["r2", "r3"]);
  });

  it("keeps the protected revisions even when they alone exceed the limit", () => {
    expect(revisionsToPrune(revisions(3), 0, new Set(["r1", "r3"]))).toEqual(["r2"]);
  });
});
