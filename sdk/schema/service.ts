import { z } from "zod";
import { BundleRefSchema, EnvVarSchema, OCICredentialsRefSchema } from "./common";
import { FIELD_DEFAULTS } from "./field-defaults";
import { DurationSchema, ObjectNameRefSchema, RevisionCountSchema, StringMapSchema } from "./field-types";
import { objectType } from "./meta";
import { bundleDigestPinned } from "./rules/bundle";
import {
  buildCommandPullRequests,
  buildOutputUnpinned,
  gitFileUrl,
  previewTtl,
  pullRequestPreviews,
} from "./rules/git";
import { revisionHistoryMinimum } from "./rules/revision-history";
import { sourceExactlyOne } from "./rules/source";
import { uniqueNames } from "./rules/unique-names";
import { ServiceConfigSpecSchema } from "./service-config";

/** Service (compute.example.dev/v1alpha1), API-SPEC section 2.2. */

export const BuildConfigSchema = objectType(
  "BuildConfig",
  {
    /** Builder image that produces the bundle. */
    builder: z.string().optional(),
    /** Overrides the builder's default build command. */
    command: z.array(z.string()).optional(),
    env: z.array(EnvVarSchema).optional(),
    /** Where built bundles are pushed; the per-build digest lands in the Build status. */
    output: BundleRefSchema,
    /** Directory within the repository. */
    rootDir: z.string().default("."),
  },
  { rules: [uniqueNames("env"), buildOutputUnpinned] },
);

export const PreviewPolicySchema = objectType(
  "PreviewPolicy",
  {
    /** Spawn ephemeral preview Services per non-production branch or pull request. */
    enabled: z.boolean(),
    /** Idle previews are garbage-collected after this. */
    ttl: DurationSchema.optional(),
  },
  { rules: [previewTtl] },
);

export const TriggersSchema = objectType("Triggers", {
  /** Enables preview builds for pull-request branches. */
  onPullRequest: z.boolean().optional(),
  /** Restricts triggering to changes under these globs. */
  paths: z.array(z.string()).optional(),
  /** Built and promoted on push. */
  productionBranch: z.string().default("main"),
});

export const GitSourceSchema = objectType(
  "GitSource",
  {
    build: BuildConfigSchema,
    credentialsRef: OCICredentialsRefSchema.optional(),
    previews: PreviewPolicySchema.optional(),
    triggers: TriggersSchema,
    /** Git repository URL. */
    url: z.string(),
  },
  { rules: [gitFileUrl, pullRequestPreviews, buildCommandPullRequests] },
);

/** Exactly one variant is set. */
export const ServiceSourceSchema = objectType(
  "ServiceSource",
  {
    git: GitSourceSchema.optional(),
    oci: BundleRefSchema.optional(),
  },
  { rules: [sourceExactlyOne, bundleDigestPinned] },
);

/** Template metadata carries labels and annotations only. */
export const ServiceTemplateMetadataSchema = objectType("ServiceTemplateMetadata", {
  annotations: StringMapSchema.optional(),
  labels: StringMapSchema.optional(),
});

export const ServiceTemplateSpecSchema = objectType("ServiceTemplateSpec", {
  metadata: ServiceTemplateMetadataSchema.optional(),
  spec: ServiceConfigSpecSchema,
});

export const ServiceSpecSchema = objectType(
  "ServiceSpec",
  {
    /** Target ServiceRevision by name; empty means the latest minted one (auto). */
    liveRevision: ObjectNameRefSchema.optional(),
    /** Number of revisions retained. */
    revisionHistoryLimit: RevisionCountSchema.default(FIELD_DEFAULTS.revisionHistoryLimit),
    source: ServiceSourceSchema,
    /** Desired serving configuration; a change mints a ServiceRevision. */
    template: ServiceTemplateSpecSchema,
  },
  { rules: [revisionHistoryMinimum] },
);

export type BuildConfig = z.output<typeof BuildConfigSchema>;
export type BuildConfigInput = z.input<typeof BuildConfigSchema>;
export type PreviewPolicy = z.output<typeof PreviewPolicySchema>;
export type PreviewPolicyInput = z.input<typeof PreviewPolicySchema>;
export type Triggers = z.output<typeof TriggersSchema>;
export type TriggersInput = z.input<typeof TriggersSchema>;
export type GitSource = z.output<typeof GitSourceSchema>;
export type GitSourceInput = z.input<typeof GitSourceSchema>;
export type ServiceSource = z.output<typeof ServiceSourceSchema>;
export type ServiceSourceInput = z.input<typeof ServiceSourceSchema>;
export type ServiceTemplateMetadata = z.output<typeof ServiceTemplateMetadataSchema>;
export type ServiceTemplateMetadataInput = z.input<typeof ServiceTemplateMetadataSchema>;
export type ServiceTemplateSpec = z.output<typeof ServiceTemplateSpecSchema>;
export type ServiceTemplateSpecInput = z.input<typeof ServiceTemplateSpecSchema>;
export type ServiceSpec = z.output<typeof ServiceSpecSchema>;
export type ServiceSpecInput = z.input<typeof ServiceSpecSchema>;
