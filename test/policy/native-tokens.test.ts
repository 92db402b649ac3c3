import { describe, expect, it } from "vitest";
import { RULE_POLICIES } from "../../policies/rule-policies";
import { STACK_POLICIES } from "../../policies/stack-policies";
import { NATIVE_TYPE_TOKENS, TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { KIND_NAMES } from "../../sdk/schema";
import { exampleResource, VALID_SPECS } from "./fixtures";
import { runResourcePolicy, runStackPolicy } from "./harness";
import { FAILING_CASES } from "./rule-cases";

// The native package's resources (`exampledev:compute/v1alpha1:Service`) take the same inputs as the dynamic
// ones (`pulumi-nodejs:dynamic/exampledev:Service`): the pack judges both the same way.
describe("the policy pack and the native package's type tokens", () => {
  it.each(Object.entries(FAILING_CASES))(
    "%s reports the same for a native resource",
    async (rule, failing) => {
      const policy = RULE_POLICIES.find(({ name }) => name === rule);
      if (policy === undefined) throw new Error(`no policy named ${rule}`);
      const dynamic = exampleResource(failing.kind, failing.name, failing.spec);
      const native = { ...dynamic, type: NATIVE_TYPE_TOKENS[failing.kind] };
      expect(await runResourcePolicy(policy, native)).toEqual(await runResourcePolicy(policy, dynamic));
      expect(await runResourcePolicy(policy, native)).toEqual(failing.messages);
    },
  );

  it("passes valid native resources of every kind", async () => {
    for (const kind of KIND_NAMES) {
      const resource = { ...exampleResource(kind, "ok", VALID_SPECS[kind]), type: NATIVE_TYPE_TOKENS[kind] };
      for (const policy of RULE_POLICIES)
        expect(await runResourcePolicy(policy, resource), policy.name).toEqual([]);
    }
  });

  it("checks stack rules across both families in one stack", async () => {
    expect(TYPE_TOKENS.Service).not.toBe(NATIVE_TYPE_TOKENS.Service);
    const service = (type: string, name: string) => ({
      ...exampleResource("Service", name, { ...VALID_SPECS.Service }, { name: "same-name" }),
      type,
    });
    const reports = await Promise.all(
      STACK_POLICIES.map((policy) =>
        runStackPolicy(policy, [service(TYPE_TOKENS.Service, "a"), service(NATIVE_TYPE_TOKENS.Service, "b")]),
      ),
    );
    expect(
      reports
        .flat()
        .map(({ message }) => message)
        .join("\n"),
    ).toContain("same-name");
  });
});
