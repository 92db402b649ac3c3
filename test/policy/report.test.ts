import { describe, expect, it } from "vitest";
import { annotation, placement, summary } from "../../policies/report/github";
import { type Finding, findings, sourceLocations } from "../../policies/report/preview-results";

const URN = "urn:pulumi:dev::web::pulumi-nodejs:dynamic/exampledev:Proxy::edge";

/** A step of `pulumi preview --json` whose state has the given stack trace. */
function step(urn: string, frames: (string | undefined)[], state: "newState" | "oldState" = "newState") {
  return {
    op: "create",
    urn,
    [state]: { urn, stackTrace: frames.map((sourcePosition) => ({ sourcePosition })) },
  };
}

describe("source locations from `pulumi preview --json`", () => {
  it("take the outermost frame in the program's own files, past the package, helpers and dependencies", () => {
    const preview = JSON.stringify({
      steps: [
        step(URN, [
          "project:///../../lib/node_modules/@exampledev/pulumi/dist/sdk/resources/resources.js#25,5",
          "project:///lib/helpers.ts#40,10",
          undefined,
          "project:///index.ts#215,1",
          "project:///node_modules/ts-node/src/index.ts#1618,23",
        ]),
        step(`${URN}-gone`, ["project:///stacks/old%20one.ts#3,1"], "oldState"),
        step(`${URN}-outside`, ["project:///../elsewhere.ts#1,1"]),
      ],
    });
    expect(Object.fromEntries(sourceLocations(preview))).toEqual({
      [URN]: { file: "index.ts", line: 215, column: 1 },
      [`${URN}-gone`]: { file: "stacks/old one.ts", line: 3, column: 1 },
    });
  });
});

describe("findings from the event log", () => {
  it("keep policy violations, remediations and diagnostics about a resource, in order", () => {
    const events = [
      {
        policyEvent: {
          resourceUrn: URN,
          policyName: "drain-minimum",
          enforcementLevel: "mandatory",
          message: "a\nb\n",
        },
      },
      {
        policyEvent: {
          resourceUrn: "",
          policyName: "unique-object-names",
          enforcementLevel: "advisory",
          message: "c",
        },
      },
      { policyRemediationEvent: { resourceUrn: URN, policyName: "required-labels" } },
      { diagnosticEvent: { urn: URN, severity: "error", message: "check failed\n" } },
      { diagnosticEvent: { severity: "error", message: "preview failed\n" } },
      { diagnosticEvent: { urn: URN, severity: "debug", message: "noise" } },
      { summaryEvent: { result: "failed" } },
    ];
    const found = findings(events.map((event) => JSON.stringify(event)).join("\n"));
    expect(found.map(({ source, level, urn }) => ({ source, level, urn }))).toEqual([
      { source: "drain-minimum", level: "mandatory", urn: URN },
      { source: "unique-object-names", level: "advisory", urn: undefined },
      { source: "required-labels", level: "remediate", urn: URN },
      { source: "pulumi", level: "error", urn: URN },
    ]);
    expect(found[0]?.message).toBe("a\nb");
  });
});

describe("GitHub annotations", () => {
  const finding: Finding = {
    source: "drain-minimum",
    level: "mandatory",
    urn: URN,
    message: "100% wrong:\nfix, then retry",
  };

  it("place a finding on its file (from the repository root), line and column, escaped as workflow commands", () => {
    const place = placement({ file: "index.ts", line: 12, column: 3 }, "/repo/infra", "/repo");
    expect(annotation(finding, place)).toBe(
      "::error file=infra/index.ts,line=12,col=3,title=drain-minimum [mandatory] on edge::100%25 wrong:%0Afix, then retry",
    );
  });

  it("make advisory findings warnings and remediations notices, without a place when there is none", () => {
    expect(annotation({ ...finding, level: "advisory", urn: undefined, message: "m" }, undefined)).toBe(
      "::warning title=drain-minimum [advisory]::m",
    );
    expect(annotation({ ...finding, level: "remediate", source: "a,b:c", message: "m" }, undefined)).toBe(
      "::notice title=a%2Cb%3Ac [remediate] on edge::m",
    );
  });

  it("list every finding in the job summary", () => {
    const place = { file: "infra/index.ts", line: 12, column: 3 };
    expect(summary([{ finding, place }])).toContain(
      "| mandatory | `drain-minimum` | edge | `infra/index.ts:12` | 100% wrong:<br>fix, then retry |",
    );
    expect(summary([])).toContain("No policy violations");
  });
});
