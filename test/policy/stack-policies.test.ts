import { describe, expect, it } from "vitest";
import { liveRevisionManaged, uniqueObjectNames } from "../../policies/stack-policies";
import { TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { UNKNOWN } from "../../sdk/schema";
import { exampleResource, specWith, VALID_SPECS } from "./fixtures";
import { runStackPolicy, type TestResource, testUrn } from "./harness";

function service(name: string, liveRevision?: unknown, metadata?: Record<string, unknown>): TestResource {
  const spec = liveRevision === undefined ? VALID_SPECS.Service : specWith("Service", { liveRevision });
  return exampleResource("Service", name, spec, metadata);
}

function revision(name: string, objectName: unknown): TestResource {
  return exampleResource("ServiceRevision", name, VALID_SPECS.ServiceRevision, { name: objectName });
}

describe("live-revision-managed", () => {
  it("is advisory by default", () => {
    expect(liveRevisionManaged.enforcementLevel).toBe("advisory");
  });

  it("passes a Service pinned to a ServiceRevision of the stack", async () => {
    const stack = [service("web", "web-v2"), revision("rev-1", "web-v1"), revision("rev-2", "web-v2")];
    expect(await runStackPolicy(liveRevisionManaged, stack)).toEqual([]);
  });

  it("passes Services that follow the latest revision", async () => {
    expect(await runStackPolicy(liveRevisionManaged, [service("web"), service("api", "")])).toEqual([]);
  });

  it("reports a pin to a revision the stack does not manage, against the Service", async () => {
    const stack = [service("web", "web-v9"), revision("rev-1", "web-v1"), revision("rev-2", "web-v2")];
    expect(await runStackPolicy(liveRevisionManaged, stack)).toEqual([
      {
        message:
          'Service "web": spec.liveRevision: "web-v9" is not among the ServiceRevisions of this stack ("web-v1", "web-v2"), so nothing here ensures it exists and is retained under revisionHistoryLimit; pin a revision the stack manages, add that ServiceRevision to the stack, or clear liveRevision to follow the latest minted revision',
        urn: testUrn(TYPE_TOKENS.Service, "web"),
      },
    ]);
  });

  it("says so when the stack manages no ServiceRevision at all", async () => {
    const [report] = await runStackPolicy(liveRevisionManaged, [service("web", "web-v1")]);
    expect(report?.message).toContain('"web-v1" is not among the ServiceRevisions of this stack (none)');
  });

  it("skips while the pinned name or any revision's name is unknown", async () => {
    expect(
      await runStackPolicy(liveRevisionManaged, [service("web", UNKNOWN), revision("rev-1", "web-v1")]),
    ).toEqual([]);
    expect(
      await runStackPolicy(liveRevisionManaged, [service("web", "web-v2"), revision("rev-2", UNKNOWN)]),
    ).toEqual([]);
  });

  it("skips while a revision's name is not in its properties yet", async () => {
    const unnamed = exampleResource("ServiceRevision", "rev-2", VALID_SPECS.ServiceRevision);
    expect(await runStackPolicy(liveRevisionManaged, [service("web", "web-v2"), unnamed])).toEqual([]);
  });

  it("only counts ServiceRevisions, not other resources that carry the name", async () => {
    const lookalike = { type: "custom:index:Revision", name: "rev", props: { metadata: { name: "web-v1" } } };
    const reports = await runStackPolicy(liveRevisionManaged, [service("web", "web-v1"), lookalike]);
    expect(reports).toHaveLength(1);
  });
});

describe("unique-object-names", () => {
  it("is mandatory by default", () => {
    expect(uniqueObjectNames.enforcementLevel).toBe("mandatory");
  });

  it("passes distinct names, one name across different kinds, and generated names", async () => {
    const stack = [
      service("web", undefined, { name: "web" }),
      service("api", undefined, { name: "api" }),
      revision("web-rev", "web"),
      service("generated"),
      service("also-generated"),
    ];
    expect(await runStackPolicy(uniqueObjectNames, stack)).toEqual([]);
  });

  it("reports every resource of a kind that shares a name, against that resource, naming the others", async () => {
    const stack = [
      service("web-a", undefined, { name: "web" }),
      service("web-b", undefined, { name: "web" }),
      service("web-c", undefined, { name: "web" }),
    ];
    const message = (name: string, others: string) =>
      `Service "${name}": metadata.name: "web" is also the name of ${others} in this stack, so they would manage the same API object; give each a distinct metadata.name, or remove it to let Pulumi generate one`;
    expect(await runStackPolicy(uniqueObjectNames, stack)).toEqual([
      {
        message: message("web-a", 'Service "web-b", Service "web-c"'),
        urn: testUrn(TYPE_TOKENS.Service, "web-a"),
      },
      {
        message: message("web-b", 'Service "web-a", Service "web-c"'),
        urn: testUrn(TYPE_TOKENS.Service, "web-b"),
      },
      {
        message: message("web-c", 'Service "web-a", Service "web-b"'),
        urn: testUrn(TYPE_TOKENS.Service, "web-c"),
      },
    ]);
  });

  it("skips names that are still unknown", async () => {
    const stack = [
      service("web-a", undefined, { name: UNKNOWN }),
      service("web-b", undefined, { name: UNKNOWN }),
    ];
    expect(await runStackPolicy(uniqueObjectNames, stack)).toEqual([]);
  });
});
