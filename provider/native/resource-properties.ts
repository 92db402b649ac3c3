// The native resources' properties beyond `metadata`, `spec` and `status`: the options every resource takes
// and the outputs each kind adds (`KIND_OUTPUTS` in sdk/resources/kind-outputs.ts computes them; a unit test
// holds the two together).
import type { KindName } from "../../sdk/schema/kinds";

type Property = Readonly<Record<string, unknown>>;

export const INPUT_OPTIONS: Readonly<Record<string, Property>> = {
  adopt: {
    type: "boolean",
    description:
      "Take over an object of the same name that already exists on the server (its spec is replaced by this one). Without it, creating over an existing object fails: the provider never upserts silently. `pulumi import` is the other way to bring an existing object under management.",
  },
  skipAwait: {
    type: "boolean",
    description:
      "Return from create and update as soon as the API stored the object, without waiting for the kind's readiness (a Service: the controller accepts the new generation and mints its revision). How long the provider waits otherwise is the resource's customTimeouts (default 300 s per step).",
  },
};

const BUILD_OUTPUT = "exampledev:compute/v1alpha1:BuildOutput";
const RESOLVED_BUNDLE = "exampledev:compute/v1alpha1:ResolvedBundle";

const text = (description: string) => ({ type: "string", description });

/** The object types the extra outputs use (the schema's own types come from the zod walk). */
export const EXTRA_TYPES: Readonly<Record<string, Property>> = {
  [BUILD_OUTPUT]: {
    type: "object",
    description: "A git source's last finished build: what was built and what it produced.",
    properties: {
      phase: text("Succeeded or Failed."),
      branch: text("The branch built."),
      commit: text("The full commit id built."),
      digest: text("The pushed manifest digest (sha256:...), when the build succeeded."),
    },
    required: ["phase", "branch"],
  },
  [RESOLVED_BUNDLE]: {
    type: "object",
    description: "What a moving source.oci.tag last resolved to.",
    properties: {
      tag: text("The tag."),
      digest: text("The digest it resolved to."),
      resolvedAt: text("When (RFC 3339)."),
    },
    required: ["tag", "digest", "resolvedAt"],
  },
};

export const EXTRA_OUTPUTS: Readonly<Record<KindName, Readonly<Record<string, Property>>>> = {
  Proxy: {},
  Service: {
    latestRevision: {
      type: "string",
      description: "The revision the controller minted for the current template and bundle digest.",
    },
    liveRevision: {
      type: "string",
      description: "The revision selected to serve: spec.liveRevision when pinned, else the latest.",
    },
    egressReady: {
      type: "boolean",
      description: "Whether the Service's egress gateway is in place (the EgressReady condition).",
    },
    lastBuild: {
      $ref: `#/types/${BUILD_OUTPUT}`,
      description: "A git source's last finished build (status.lastBuild without its message).",
    },
    resolvedBundle: {
      $ref: `#/types/${RESOLVED_BUNDLE}`,
      description: "An OCI source named by tag: the digest the tag last resolved to (status.resolvedBundle).",
    },
  },
  ServiceRevision: {
    bundleDigest: { type: "string", description: "The digest of the bundle this revision runs." },
  },
};
