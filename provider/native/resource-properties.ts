// The native resources' properties beyond `metadata`, `spec` and `status`: the options every resource takes
// and the outputs each kind adds (`KIND_BEHAVIOUR[kind].extraOutputs` in provider/kinds.ts computes them; a
// unit test holds the two together).
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
  },
  ServiceRevision: {
    bundleDigest: { type: "string", description: "The digest of the bundle this revision runs." },
  },
};
