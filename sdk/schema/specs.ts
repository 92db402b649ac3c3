import type { z } from "zod";
import type { KindName } from "./kinds";
import { ProxySpecSchema } from "./proxy";
import { type RequiredFieldsRule, revisionBundleRequired, serviceRequiredFields } from "./rules/required";
import { ServiceSpecSchema } from "./service";
import { ServiceRevisionSpecSchema } from "./service-revision";

/** Each kind's spec schema and the section-7 rules that name some of its required fields. */
export const SPECS: Readonly<
  Record<KindName, { schema: z.ZodType; required: readonly RequiredFieldsRule[] }>
> = {
  Proxy: { schema: ProxySpecSchema, required: [] },
  Service: { schema: ServiceSpecSchema, required: [serviceRequiredFields] },
  ServiceRevision: { schema: ServiceRevisionSpecSchema, required: [revisionBundleRequired] },
};

/** The schema of a kind's spec; throws for a name that is not a kind (a programming error, not bad input). */
export function specSchema(kind: KindName): z.ZodType {
  const entry = SPECS[kind];
  if (entry === undefined)
    throw new TypeError(`unknown kind ${JSON.stringify(kind)}: use Proxy, Service or ServiceRevision`);
  return entry.schema;
}
