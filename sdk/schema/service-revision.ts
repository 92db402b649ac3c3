import type { z } from "zod";
import { BundleRefSchema } from "./common";
import { objectType } from "./meta";
import { revisionBundleDigest } from "./rules/bundle";
import { serviceConfigFields, serviceConfigMeta } from "./service-config";

/** ServiceRevision (compute.example.dev/v1alpha1), API-SPEC section 2.3: the shared config fields plus bundle. */
export const ServiceRevisionSpecSchema = objectType(
  "ServiceRevisionSpec",
  {
    ...serviceConfigFields,
    /** The resolved, digest-pinned artifact this revision runs; set by the controller. */
    bundle: BundleRefSchema,
  },
  { fill: serviceConfigMeta.fill, rules: [...serviceConfigMeta.rules, revisionBundleDigest] },
);

export type ServiceRevisionSpec = z.output<typeof ServiceRevisionSpecSchema>;
export type ServiceRevisionSpecInput = z.input<typeof ServiceRevisionSpecSchema>;
