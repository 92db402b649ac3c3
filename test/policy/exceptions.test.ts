import { describe, expect, it } from "vitest";
import { exceptionProblems, judgeException } from "../../policies/exceptions";
import { PackConfigError, type PolicyException, readPackConfig } from "../../policies/pack-config";

const KNOWN = new Set(["drain-minimum", "allowed-sources", "policy-exceptions"]);
const URN = "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/exampledev:Proxy::edge";
const exception = (fields: Partial<PolicyException> = {}) => ({
  reason: "drained by hand",
  match: [{ policies: ["drain-minimum"], targets: [URN] }],
  ...fields,
});
const file = (exceptions: object, policies: object = {}) =>
  JSON.stringify({ version: 2, policies, exceptions });
const refusal = (text: string) => {
  try {
    readPackConfig(text, KNOWN);
  } catch (error) {
    expect(error).toBeInstanceOf(PackConfigError);
    return (error as Error).message;
  }
  throw new Error("not refused");
};

describe("reading a policy pack config file (policies/pack-config.ts)", () => {
  it("reads both forms: unversioned settings, and version 2 with exceptions", () => {
    expect(readPackConfig(JSON.stringify({ "drain-minimum": "advisory" }), KNOWN)).toEqual({
      policies: { "drain-minimum": "advisory" },
      exceptions: [],
    });
    const config = readPackConfig(
      file({ "EXC-1": exception({ owner: "edge", expires: "2026-12-31" }) }),
      KNOWN,
    );
    expect(config.exceptions).toEqual([
      { id: "EXC-1", ...exception(), owner: "edge", expires: "2026-12-31" },
    ]);
  });

  it("refuses a wrong entry, naming it", () => {
    const unknown = exception({ match: [{ policies: ["drain-minimun"], targets: [URN] }] });
    expect(refusal(file({ E: unknown }))).toContain('exceptions.E.match[0].policies names "drain-minimun"');
    expect(refusal(file({ E: exception({ expires: "2026-02-30" }) }))).toContain(
      'exceptions.E.expires is "2026-02-30", not a date',
    );
    expect(refusal(file({ E: { ...exception(), expiry: "2026-12-31" } }))).toContain(
      "exceptions.E.expiry is not a field of an exception",
    );
    expect(
      refusal(file({ E: exception({ match: [{ policies: ["drain-minimum"], targets: ["edge"] }] }) })),
    ).toContain('has "edge", which is not a URN');
    expect(refusal(file({ "EXC 1": exception() }))).toContain("exceptions.EXC 1 has an ID Pulumi refuses");
    expect(refusal(JSON.stringify({ version: 3 }))).toContain("version is 3");
  });

  it("refuses a file that mixes the pack's exemptions with Pulumi's exceptions", () => {
    const exemptions = [{ resource: "edge", reason: "r", owner: "o", expires: "2026-12-31" }];
    expect(refusal(file({ E: exception() }, { "drain-minimum": { exemptions } }))).toContain(
      "policies.drain-minimum.exemptions mixes the pack's exemptions with Pulumi's exceptions",
    );
  });
});

describe("judging exceptions (policies/exceptions.ts)", () => {
  const live = { id: "EXC-10", ...exception({ expires: "2026-12-31" }) };
  const expired = { id: "EXC-2", ...exception({ expires: "2026-11-30" }) };

  it("exempts by a live exception that names the policy and the exact URN; an expired one exempts nothing", () => {
    expect(judgeException([expired, live], "drain-minimum", URN, "2026-12-02")).toEqual({
      exempted: true,
      exception: live,
    });
    expect(judgeException([expired], "drain-minimum", URN, "2026-12-02")).toEqual({
      exempted: false,
      expired,
    });
    expect(judgeException([live], "allowed-sources", URN, "2026-12-02")).toEqual({ exempted: false });
    expect(judgeException([live], "drain-minimum", `${URN}-2`, "2026-12-02")).toEqual({ exempted: false });
    expect(judgeException([live], "drain-minimum", URN, "2027-01-01")).toMatchObject({
      exempted: false,
      expired: live,
    });
  });

  it("finds what the pack fails the preview for: expired, beyond or without an expiry under exemptionMaxDays, itself", () => {
    const config = (exceptions: PolicyException[], maxDays?: number) => ({
      policies: maxDays === undefined ? {} : { "drain-minimum": { exemptionMaxDays: maxDays } },
      exceptions,
    });
    const on = "2026-12-02";
    expect(exceptionProblems(config([live]), on)).toEqual([]);
    expect(exceptionProblems(config([expired]), on)[0]?.message).toContain(
      'policy exception "EXC-2" expired on 2026-11-30',
    );
    expect(exceptionProblems(config([live], 7), on)[0]?.message).toContain(
      "more than exemptionMaxDays (7) days",
    );
    const open = { id: "E", ...exception() };
    expect(exceptionProblems(config([open], 7), on)[0]?.message).toContain(
      "has no expires, and exemptionMaxDays of drain-minimum is 7",
    );
    expect(exceptionProblems(config([open]), on)).toEqual([]);
    const itself = {
      id: "S",
      ...exception({ match: [{ policies: ["policy-exceptions"], targets: [URN] }] }),
    };
    expect(exceptionProblems(config([itself]), on)[0]?.message).toContain("cannot be exempted");
  });
});
