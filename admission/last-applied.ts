import { type KindName, redactSecrets } from "../sdk/schema";
import { isRecord } from "../sdk/shared/records";

/**
 * `kubectl apply` (client-side) keeps the whole configuration it applied in this annotation, secret values
 * included, and every answer carries annotations: admission stores it with each secret replaced by its
 * placeholder, as the spec is answered. kubectl only compares it with the next configuration, so a
 * placeholder there costs one patch that sets the value again (the same value: no change is stored).
 */
export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

export function redactLastApplied(
  kind: KindName,
  annotations: Record<string, string> | undefined,
): Record<string, string> | undefined {
  const text = annotations?.[LAST_APPLIED];
  if (annotations === undefined || text === undefined) return annotations;
  let applied: unknown;
  try {
    applied = JSON.parse(text);
  } catch {
    return annotations;
  }
  if (!isRecord(applied) || !isRecord(applied.spec)) return annotations;
  const redacted = JSON.stringify({ ...applied, spec: redactSecrets(kind, applied.spec) });
  // kubectl writes the JSON with a final newline; keep its form so an unchanged configuration reads the same.
  return { ...annotations, [LAST_APPLIED]: text.endsWith("\n") ? `${redacted}\n` : redacted };
}
