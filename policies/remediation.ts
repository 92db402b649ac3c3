import { Secret } from "@pulumi/policy";
import type { PathSegment } from "../sdk/schema";
import { isRecord } from "../sdk/shared/records";
import { plainProperties } from "./resources";

/**
 * Remediations (`enforcementLevel: "remediate"`) change a resource's inputs before the engine diffs them.
 * A remediation works out its changes on plain values, then writes them through the proxies @pulumi/policy
 * hands it, which keep a secret field secret when it is replaced.
 */

/** One change: set `value` at `path` of the resource's properties, or remove the field there (undefined). */
export interface Edit {
  path: readonly PathSegment[];
  value: unknown;
}

function reveal(value: unknown): unknown {
  if (value instanceof Secret) return reveal(value.value);
  if (Array.isArray(value)) return value.map(reveal);
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, reveal(item)]));
  return value;
}

/**
 * The properties as plain values, for working out edits: read past the unknown-checking proxy (a remediation
 * judges only what is known) with secret values revealed, as validations see them.
 */
export function remediationProperties(props: Record<string, unknown>): Record<string, unknown> {
  return reveal(plainProperties(props)) as Record<string, unknown>;
}

/**
 * Applies `edits` to `props` (the proxied properties the remediation got) and returns them for the engine,
 * or undefined when there is nothing to change, so the engine reports no remediation. Edits only reach
 * through values that are known: objects missing on the way are created.
 */
export function applyEdits(
  props: Record<string, unknown>,
  edits: readonly Edit[],
): Record<string, unknown> | undefined {
  if (edits.length === 0) return undefined;
  for (const { path, value } of edits) {
    const last = path.at(-1);
    if (last === undefined) continue;
    let target: Record<PathSegment, unknown> = props;
    for (const segment of path.slice(0, -1)) {
      if (!isRecord(target[segment]) && !Array.isArray(target[segment])) target[segment] = {};
      target = target[segment] as Record<PathSegment, unknown>;
    }
    if (value === undefined) delete target[last];
    else target[last] = value;
  }
  return props;
}
