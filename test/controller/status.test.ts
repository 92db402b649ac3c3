import { describe, expect, it } from "vitest";
import { nextConditions } from "../../controller/conditions";

const ready = { type: "Ready", status: "True" as const, reason: "Fine", message: "all good" };

describe("nextConditions", () => {
  it("stamps a new condition with now and the observed generation", () => {
    expect(nextConditions(undefined, [ready], 3, "2026-01-01T00:00:00Z")).toEqual([
      { ...ready, lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: 3 },
    ]);
  });

  it("keeps the transition time while the status stays, even when reason and message change", () => {
    const before = nextConditions(undefined, [ready], 1, "2026-01-01T00:00:00Z");
    const after = nextConditions(
      before,
      [{ ...ready, reason: "Other", message: "still good" }],
      2,
      "2026-01-02T00:00:00Z",
    );
    expect(after[0]).toMatchObject({
      reason: "Other",
      lastTransitionTime: "2026-01-01T00:00:00Z",
      observedGeneration: 2,
    });
  });

  it("moves the transition time when the status changes", () => {
    const before = nextConditions(undefined, [ready], 1, "2026-01-01T00:00:00Z");
    const after = nextConditions(before, [{ ...ready, status: "False" }], 1, "2026-01-02T00:00:00Z");
    expect(after[0]?.lastTransitionTime).toBe("2026-01-02T00:00:00Z");
  });

  it("ignores stored conditions that are not conditions", () => {
    expect(
      nextConditions([null, "x", { status: "True" }], [ready], 1, "2026-01-03T00:00:00Z")[0]
        ?.lastTransitionTime,
    ).toBe("2026-01-03T00:00:00Z");
  });
});
