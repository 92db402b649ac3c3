import { z } from "zod";
import { DigestSchema, RepoSchema, TagSchema } from "./field-types";
import { objectType } from "./meta";
import { bundleCredentialsExclusive } from "./rules/bundle";
import { passwordPlaintext, passwordPrecedence } from "./rules/credentials";

/** Types shared by Service and ServiceRevision: environment variables and OCI bundle references. */

export const EnvVarSchema = objectType("EnvVar", {
  name: z.string(),
  value: z.string(),
});

/** Registry credentials; every value here is a secret (see secrets.ts). */
export const OCICredentialsSchema = objectType(
  "OCICredentials",
  {
    /** Registry bearer token, sent as-is; skips the token-service exchange. */
    accessToken: z.string().optional(),
    /** Write-only plain-text password; prefer passwordData. */
    password: z.string().optional(),
    /** Raw password bytes (not base64); wins over password when both are set. */
    passwordData: z.string().optional(),
    /** OAuth2 refresh token exchanged with the registry's token service. */
    refreshToken: z.string().optional(),
    username: z.string().optional(),
  },
  { rules: [passwordPlaintext, passwordPrecedence] },
);

export const OCICredentialsRefSchema = objectType("OCICredentialsRef", {
  group: z.string(),
  name: z.string(),
  namespace: z.string(),
});

/** A BundleRef with neither tag nor digest means the tag "latest". */
function defaultTag(ref: Record<string, unknown>): Record<string, unknown> {
  return ref.tag === undefined && ref.digest === undefined ? { ...ref, tag: "latest" } : ref;
}

export const BundleRefSchema = objectType(
  "BundleRef",
  {
    credentials: OCICredentialsSchema.optional(),
    credentialsRef: OCICredentialsRefSchema.optional(),
    /** "sha256:<64 hex>"; pins the exact artifact (strongly preferred). */
    digest: DigestSchema.optional(),
    /** "<registry_host>/<path>", e.g. "registry.example.dev/team/app". */
    repo: RepoSchema,
    /** Resolved to a digest by the controller when digest is unset; "latest" when both are unset. */
    tag: TagSchema.optional(),
  },
  { fill: defaultTag, rules: [bundleCredentialsExclusive] },
);

export type EnvVar = z.output<typeof EnvVarSchema>;
export type EnvVarInput = z.input<typeof EnvVarSchema>;
export type OCICredentials = z.output<typeof OCICredentialsSchema>;
export type OCICredentialsInput = z.input<typeof OCICredentialsSchema>;
export type OCICredentialsRef = z.output<typeof OCICredentialsRefSchema>;
export type OCICredentialsRefInput = z.input<typeof OCICredentialsRefSchema>;
export type BundleRef = z.output<typeof BundleRefSchema>;
export type BundleRefInput = z.input<typeof BundleRefSchema>;
