import { type PathSegment, parseDuration } from "../sdk/schema";
import { FIELD_DEFAULTS } from "../sdk/schema/field-defaults";
import type { Edit } from "./remediation";
import { valueAt } from "./resources";

/**
 * Fixes for rule violations that keep what the author wrote and change nothing that is deployed beyond what
 * the API requires: each takes the path of one violation (from the schema's validateSpec) and the resource's
 * plain properties. Every other rule has none, because its fix means choosing between things the author may
 * want: which of two exclusive fields to keep, which port, which digest, a name, a URL.
 */
export interface RuleRemediation {
  /** What `remediate` does, for the documentation. */
  description: string;
  edits(path: readonly PathSegment[], props: Record<string, unknown>): Edit[];
}

/** Removes the field the violation names. */
const removeField = (path: readonly PathSegment[]): Edit[] => [{ path, value: undefined }];

export const RULE_REMEDIATIONS: Readonly<Record<string, RuleRemediation>> = {
  "drain-minimum": {
    description:
      "raises shutdown.minimumDrainTime to shutdown.drainTimeout: the proxy still waits drainTimeout as written, and the API's minimum holds",
    edits: (path, props) => {
      const written = valueAt(props, [...path.slice(0, -1), "drainTimeout"]);
      const drainTimeout = written === undefined ? FIELD_DEFAULTS.drainTimeout : written;
      return typeof drainTimeout === "string" && parseDuration(drainTimeout) !== undefined
        ? [{ path, value: drainTimeout }]
        : [];
    },
  },
  "password-precedence": {
    description: "removes credentials.password, which the API ignores because passwordData takes precedence",
    edits: removeField,
  },
  "backend-port-ignored": {
    description: "removes backend.port, which the API ignores for protocol http1 and http2",
    edits: removeField,
  },
};
