import type { Policies } from "@pulumi/policy";
import { RULE_POLICIES } from "./rule-policies";
import { STACK_POLICIES } from "./stack-policies";

/** Every policy of the pack: one per rule of the shared schema, then the checks that span resources. */
export const POLICIES: Policies = [...RULE_POLICIES, ...STACK_POLICIES];
