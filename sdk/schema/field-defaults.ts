import { MANAGED_PROVIDER } from "./enums";

/**
 * The field defaults that rule texts name, declared once in a layer below both that read them: the kinds'
 * schemas pass them to `.default()`, the rules (which the schemas import) put them in their messages and
 * descriptions. `fieldDefault` (defaults.ts) reads any default back from the schema.
 */
export const FIELD_DEFAULTS = {
  /** ProxySpec `provider`. */
  proxyProvider: MANAGED_PROVIDER,
  /** ShutdownConfig `drainTimeout`. */
  drainTimeout: "30s",
  /** ShutdownConfig `minimumDrainTime`. */
  minimumDrainTime: "30s",
  /** ServiceSpec `revisionHistoryLimit`. */
  revisionHistoryLimit: 10,
} as const;
