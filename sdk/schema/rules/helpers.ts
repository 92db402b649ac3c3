import type { KindName } from "../kinds";
import type { ObjectNode, ObjectRule } from "../meta";
import { isKnown, isRecord } from "../sentinel";
import { type CauseReason, type PathSegment, type RuleInfo, violation } from "../violation";

export const SERVICE_KINDS: readonly KindName[] = ["Service", "ServiceRevision"];

/** Quotes a user value for a message, shortened so a pasted blob does not flood the output. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Types whose API-SPEC name is misspelt: the spec's name stays the type's name in code (`ProxyTelementry`),
 * but messages spell the word right.
 */
const MESSAGE_TYPE_NAMES: Readonly<Record<string, string>> = { ProxyTelementry: "ProxyTelemetry" };

/** An API type's name as messages give it. */
export function typeNameInMessages(typeName: string): string {
  return MESSAGE_TYPE_NAMES[typeName] ?? typeName;
}

/** A non-empty string that is not the unknown sentinel. */
export function isSetString(value: unknown): value is string {
  return typeof value === "string" && value !== "" && isKnown(value);
}

/** The object at `key`, or undefined when absent, unknown or not an object. */
export function child(value: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const found = value[key];
  return isRecord(found) ? found : undefined;
}

/** One problem an object rule found: where (relative to the object), why, and how to fix it. */
export interface Finding {
  at: readonly PathSegment[];
  reason: CauseReason;
  fix: string;
}

export function objectRule(info: RuleInfo, find: (node: ObjectNode) => Finding[]): ObjectRule {
  return {
    info,
    check: (node) =>
      find(node).map(({ at, reason, fix }) => violation(info, [...node.path, ...at], reason, fix)),
  };
}
