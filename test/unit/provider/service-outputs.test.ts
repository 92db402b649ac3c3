// The outputs a Service adds beyond metadata, spec and status: what a program reads of its builds and tags.
import { describe, expect, test } from "vitest";
import { type AnyObject, KIND_BEHAVIOUR } from "../../../provider/kinds";

const DIGEST = `sha256:${"c".repeat(64)}`;

function service(status: Record<string, unknown>): AnyObject {
  return {
    apiVersion: "compute.example.dev/v1alpha1",
    kind: "Service",
    metadata: { name: "web" },
    spec: {},
    status,
  } as AnyObject;
}

const outputs = (status: Record<string, unknown>) => KIND_BEHAVIOUR.Service.extraOutputs(service(status));

describe("Service outputs", () => {
  test("lastBuild: phase, branch, commit and digest, without the message", () => {
    const lastBuild = {
      phase: "Succeeded",
      branch: "main",
      commit: "0123456789abcdef0123456789abcdef01234567",
      digest: DIGEST,
      startTime: "2026-11-23T08:00:00Z",
      completionTime: "2026-11-23T08:00:02Z",
      message: "pushed 127.0.0.1:5000/team/web",
    };
    expect(outputs({ lastBuild }).lastBuild).toEqual({
      phase: "Succeeded",
      branch: "main",
      commit: lastBuild.commit,
      digest: DIGEST,
    });
  });

  test("a failed build has no digest", () => {
    const lastBuild = { phase: "Failed", branch: "main", message: "git fetch failed" };
    expect(outputs({ lastBuild }).lastBuild).toEqual({ phase: "Failed", branch: "main" });
  });

  test("resolvedBundle as the status says it", () => {
    const resolvedBundle = { tag: "v1", digest: DIGEST, resolvedAt: "2026-11-23T08:00:00Z" };
    expect(outputs({ resolvedBundle }).resolvedBundle).toEqual(resolvedBundle);
  });

  test("neither output while the status has none", () => {
    expect(outputs({ latestRevision: "web-abc" })).toEqual({ latestRevision: "web-abc" });
  });
});
