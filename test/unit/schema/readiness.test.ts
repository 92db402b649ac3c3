// Ready, Reconciling and Stalled as the schema derives them from a Service's concerns (status-readiness.ts):
// one case per state a tool reading kstatus must tell apart.
import { describe, expect, it } from "vitest";
import { type Condition, CONDITION_REASONS as R } from "../../../sdk/schema/status";
import { proxyReadiness, serviceReadiness } from "../../../sdk/schema/status-readiness";

type Concern = Pick<Condition, "type" | "status" | "reason" | "message">;
const c = (type: string, status: Condition["status"], reason: string): Concern => ({
  type,
  status,
  reason,
  message: `${type} ${reason}`,
});
const LIVE = [
  c("Accepted", "True", R.Accepted.Minted),
  c("EgressReady", "True", R.EgressReady.Applied),
  c("LiveRevisionReady", "True", R.LiveRevisionReady.Live),
];
const summary = (concerns: Concern[], build?: Parameters<typeof serviceReadiness>[1]) =>
  serviceReadiness(concerns, build).map(({ type, status, reason }) => `${type}=${status}/${reason}`);

describe("a Service's readiness", () => {
  it("is Ready, neither reconciling nor stalled, when its revision is minted, live and its egress applied", () => {
    expect(summary(LIVE)).toEqual([
      "Ready=True/Ready",
      "Reconciling=False/Reconciled",
      "Stalled=False/Reconciled",
    ]);
  });

  it("is Ready with egress disabled, as the spec asks", () => {
    const disabled = [LIVE[0], c("EgressReady", "False", R.EgressReady.Disabled), LIVE[2]] as Concern[];
    expect(summary(disabled)[0]).toBe("Ready=True/Ready");
  });

  it("is Reconciling while its tag is resolved or its build awaited", () => {
    const waiting = [c("Accepted", "Unknown", R.Accepted.AwaitingRegistry), LIVE[1], LIVE[2]] as Concern[];
    expect(summary(waiting)).toEqual([
      "Ready=False/AwaitingRegistry",
      "Reconciling=True/AwaitingRegistry",
      "Stalled=False/Progressing",
    ]);
    const build = { phase: "Running" as const, branch: "main" };
    const awaiting = [c("Accepted", "False", R.Accepted.AwaitingBuild), LIVE[1]] as Concern[];
    const [, reconciling] = serviceReadiness(awaiting, build);
    expect(reconciling).toMatchObject({ status: "True", reason: R.Accepted.AwaitingBuild });
    expect(reconciling?.message).toContain("a build of main is running");
  });

  it("is Stalled with the build's reason and message when the build failed", () => {
    const failed = [c("Accepted", "False", R.Accepted.BuildFailed), LIVE[1], LIVE[2]] as Concern[];
    const [ready, reconciling, stalled] = serviceReadiness(failed);
    expect(ready).toMatchObject({ status: "False", reason: "BuildFailed" });
    expect(reconciling).toMatchObject({ status: "False", reason: "BuildFailed" });
    expect(stalled).toEqual({
      type: "Stalled",
      status: "True",
      reason: "BuildFailed",
      message: "Accepted BuildFailed",
    });
  });

  it("is Stalled when pinned to a revision that does not exist", () => {
    const pinned = [
      LIVE[0],
      LIVE[1],
      c("LiveRevisionReady", "False", R.LiveRevisionReady.RevisionNotFound),
    ] as Concern[];
    expect(summary(pinned)).toEqual([
      "Ready=False/RevisionNotFound",
      "Reconciling=False/RevisionNotFound",
      "Stalled=True/RevisionNotFound",
    ]);
  });

  it("is Stalled by an egress gateway that does not exist, its revision live", () => {
    const dangling = [
      LIVE[0],
      c("EgressReady", "False", R.EgressReady.GatewayNotFound),
      LIVE[2],
    ] as Concern[];
    expect(summary(dangling)[2]).toBe("Stalled=True/GatewayNotFound");
  });

  it("is Stalled by a repository it cannot fetch only while nothing is minted for the generation", () => {
    const fetchFailed = c("SourceReady", "False", R.SourceReady.FetchFailed);
    const awaiting = [c("Accepted", "False", R.Accepted.AwaitingBuild), LIVE[1], fetchFailed] as Concern[];
    expect(summary(awaiting)[2]).toBe("Stalled=True/FetchFailed");
    expect(summary([...LIVE, fetchFailed])[0]).toBe("Ready=True/Ready");
  });

  it("stays Ready and is Reconciling while a build of a new commit runs", () => {
    const build = { phase: "Pending" as const, branch: "main", commit: "1a2b3c4d5e6f" };
    expect(summary(LIVE, build)).toEqual([
      "Ready=True/Ready",
      "Reconciling=True/Building",
      "Stalled=False/Progressing",
    ]);
  });
});

describe("a Proxy's readiness", () => {
  it("is Ready while held, and Reconciling while it drains", () => {
    expect(proxyReadiness("held").map(({ status }) => status)).toEqual(["True", "False", "False"]);
    expect(
      proxyReadiness({ draining: "until then" }).map(({ status, reason }) => `${status}/${reason}`),
    ).toEqual(["False/Draining", "True/Draining", "False/Progressing"]);
  });
});
