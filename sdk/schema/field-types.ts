import { z } from "zod";
import {
  digestFormat,
  dns1123Name,
  durationFormat,
  keyDataBase64,
  otelEndpointUrl,
  quantityFormat,
  repoFormat,
  tagFormat,
  type ValueRule,
} from "./rules/formats";
import { backendPortRange, revisionHistoryRange } from "./rules/ranges";

/** The value types of section 2 that carry a format or range; each check reports its rule id. */

function checkedBy<T>(rule: ValueRule<T>) {
  return {
    params: { rule: rule.info.id },
    error: (issue: { input: unknown }) => rule.fix(issue.input as T),
    // A value that already failed (e.g. outside int32) is not reported twice.
    when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0,
  };
}

function formattedString(rule: ValueRule<string>) {
  return z.string().refine(rule.accepts, checkedBy(rule));
}

export const DurationSchema = formattedString(durationFormat);
export const DigestSchema = formattedString(digestFormat);
export const RepoSchema = formattedString(repoFormat);
export const TagSchema = formattedString(tagFormat);
export const ObjectNameRefSchema = formattedString(dns1123Name);
export const HttpUrlSchema = formattedString(otelEndpointUrl);
export const QuantitySchema = formattedString(quantityFormat);
export const Base64Schema = formattedString(keyDataBase64);
export const PortSchema = z.int32().refine(backendPortRange.accepts, checkedBy(backendPortRange));
export const RevisionCountSchema = z
  .int32()
  .refine(revisionHistoryRange.accepts, checkedBy(revisionHistoryRange));
/** Free-form string maps (labels, headers, extra log fields). */
export const StringMapSchema = z.record(z.string(), z.string());
