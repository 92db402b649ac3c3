import { isUnknown, KIND_NAMES, type KindName, keyProblem } from "../../sdk/schema";
import { isRecord } from "../../sdk/shared/records";
import type { Edit } from "../remediation";
import { LABEL_VALUE, labelMap, SettingError } from "../settings";
import { organisationPolicy } from "./organisation-policy";

interface Settings {
  /** Label key -> allowed values; an empty list allows any value. */
  labels: Record<string, string[]>;
  /** Label key -> the value remediation fills in when the label is missing. */
  defaults: Record<string, string>;
}

const NAME = "required-labels";

/** `metadata.labels.team`, or `metadata.labels["example.dev/team"]` for keys that are not plain names. */
function labelPath(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)
    ? `metadata.labels.${key}`
    : `metadata.labels[${JSON.stringify(key)}]`;
}

function listed(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(", ");
}

/** The labels as written, or undefined when they cannot be judged yet (unknown during preview). */
function labelsOf(props: Record<string, unknown>): Record<string, unknown> | undefined {
  const { metadata } = props;
  if (metadata === undefined) return {};
  if (!isRecord(metadata)) return undefined;
  const { labels } = metadata;
  if (labels === undefined) return {};
  return isRecord(labels) ? labels : undefined;
}

function missing(key: string, allowed: readonly string[]): string {
  const values = allowed.length === 0 ? "any value" : `one of ${listed(allowed)}`;
  return `${labelPath(key)}: missing; the organisation requires this label (${values}): add it to metadata.labels`;
}

export const requiredLabels = organisationPolicy<Settings>({
  name: NAME,
  description:
    "Every Proxy, Service and ServiceRevision carries the labels the organisation requires (such as an owning team or a cost centre), with allowed values, so each object can be traced to who runs it and selected by label.",
  kinds: KIND_NAMES,
  configSchema: {
    properties: {
      labels: {
        ...labelMap(
          { type: "array", items: LABEL_VALUE, uniqueItems: true },
          "Label key -> the values allowed for it; an empty list allows any value.",
        ),
        default: {},
      },
      defaults: {
        ...labelMap(
          LABEL_VALUE,
          "Label key -> the value remediation fills in when that required label is missing.",
        ),
        default: {},
      },
    },
  },
  severity: "low",
  fix: "Add each required label to metadata.labels, with one of the values the policy config allows.",
  remediation:
    "fills in a missing required label from `defaults`; a label with a value that is not allowed is left for the author",
  checkSettings: ({ labels, defaults }) => {
    for (const key of Object.keys(labels)) {
      const problem = keyProblem(key);
      if (problem !== undefined)
        throw new SettingError(NAME, `labels.${key}`, `is not a label key: ${problem}`);
    }
    for (const [key, value] of Object.entries(defaults)) {
      const allowed = labels[key];
      if (allowed === undefined) {
        throw new SettingError(
          NAME,
          `defaults.${key}`,
          "names a label that labels does not require: add it to labels, or remove the default",
        );
      }
      if (allowed.length > 0 && !allowed.includes(value)) {
        throw new SettingError(
          NAME,
          `defaults.${key}`,
          `is ${JSON.stringify(value)}, which labels.${key} does not allow (${listed(allowed)})`,
        );
      }
    }
  },
  check: (_kind: KindName, props, { labels: required }) => {
    const labels = labelsOf(props);
    if (labels === undefined) return [];
    return Object.entries(required).flatMap(([key, allowed]) => {
      const value = labels[key];
      if (value === undefined) return [missing(key, allowed)];
      if (isUnknown(value) || allowed.length === 0 || allowed.includes(String(value))) return [];
      return [`${labelPath(key)}: ${JSON.stringify(value)} is not allowed; use one of ${listed(allowed)}`];
    });
  },
  remediate: (_kind, props, { labels: required, defaults }) => {
    const labels = labelsOf(props);
    if (labels === undefined) return [];
    return Object.keys(required).flatMap((key): Edit[] => {
      const value = defaults[key];
      return labels[key] === undefined && value !== undefined
        ? [{ path: ["metadata", "labels", key], value }]
        : [];
    });
  },
});
