import type { Policies } from "@pulumi/policy";
import { exceptionsPolicy } from "./exceptions-policy";
import { withExemptions } from "./exemptions";
import { ORGANISATION_POLICIES } from "./organisation";
import { RULE_POLICIES } from "./rule-policies";
import { STACK_POLICIES } from "./stack-policies";

/**
 * Every policy of the pack: one per rule of the shared schema, the checks that span resources, then the
 * organisation policies (disabled until a policy config turns them on). Each honours the exemptions of its
 * policy config (policies/exemptions.ts); `policy-exceptions` judges Pulumi's exceptions (policies/exceptions.ts).
 */
export const POLICIES: Policies = [
  ...RULE_POLICIES,
  ...STACK_POLICIES,
  exceptionsPolicy(() => POLICIES.map(({ name }) => name)),
  ...ORGANISATION_POLICIES.map(({ policy }) => policy),
].map((policy) => withExemptions(policy));
