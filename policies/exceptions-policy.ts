import type { StackValidationPolicy } from "@pulumi/policy";
import { KIND_NAMES } from "../sdk/schema";
import { locatePackConfig } from "./config-file";
import { today } from "./dates";
import { EXCEPTIONS_POLICY, exceptionProblems } from "./exceptions";
import { policyMetadata } from "./metadata";
import { PackConfigError, readPackConfig } from "./pack-config";

/**
 * The policy that holds Pulumi's policy exceptions to the pack's rules (policies/exceptions.ts): it reads the
 * run's `--policy-pack-config` file and fails the preview on an expired exception (which the CLI would still
 * apply), an expiry beyond `exemptionMaxDays`, an exception naming a policy the pack does not have, or a file
 * mixing exemptions and exceptions. `policyNames` are the pack's, read when the policy runs.
 */
export function exceptionsPolicy(policyNames: () => readonly string[]): StackValidationPolicy {
  return {
    name: EXCEPTIONS_POLICY,
    description:
      "The policy exceptions of the policy pack config file (version 2) are current: none has expired or expires beyond exemptionMaxDays, each names policies of this pack, and the file does not mix them with the pack's own exemptions.",
    enforcementLevel: "mandatory",
    ...policyMetadata({
      name: EXCEPTIONS_POLICY,
      area: "policy-config",
      kinds: KIND_NAMES,
      severity: "high",
      fix: "Renew an expired exception with a later expires, or fix the resources it names and remove it; fix the entry the message names.",
    }),
    validateStack: ({ resources }, reportViolation) => {
      const located = locatePackConfig();
      if (located === undefined) return;
      let config: ReturnType<typeof readPackConfig>;
      try {
        config = readPackConfig(located.text, new Set(policyNames()));
      } catch (error) {
        if (!(error instanceof PackConfigError)) throw error;
        reportViolation(`${located.path}: ${error.message}`);
        return;
      }
      const inStack = new Set(resources.map(({ urn }) => urn));
      for (const problem of exceptionProblems(config, today()))
        reportViolation(
          `${located.path}: ${problem.message}`,
          problem.targets.find((urn) => inStack.has(urn)),
        );
    },
  };
}
