import type * as pulumi from "@pulumi/pulumi";
import type { ObjectStatus, ServiceStatus } from "../client/types";
import type {
  ProxySpec,
  ProxySpecInput,
  ServiceRevisionSpec,
  ServiceRevisionSpecInput,
  ServiceSpec,
  ServiceSpecInput,
} from "../schema";
import type { BuildStatus, ResolvedBundleStatus } from "../schema/status";
import { ApiResource, type ApiResourceArgs } from "./api-resource";

export type ProxyArgs = ApiResourceArgs<ProxySpecInput>;

/** A proxy deployment (`core.example.dev/v1alpha2`). */
export class Proxy extends ApiResource<ProxySpec, ObjectStatus> {
  constructor(name: string, args: ProxyArgs, opts?: pulumi.CustomResourceOptions) {
    super("Proxy", name, { ...args }, [], opts);
  }
}

export type ServiceArgs = ApiResourceArgs<ServiceSpecInput>;

/** A deployable bundle and the template its revisions are minted from (`compute.example.dev/v1alpha1`). */
export class Service extends ApiResource<ServiceSpec, ServiceStatus> {
  /** The revision the controller minted for the current template and bundle digest. */
  declare readonly latestRevision: pulumi.Output<string | undefined>;
  /** The revision selected to serve: `spec.liveRevision` when pinned, else the latest. */
  declare readonly liveRevision: pulumi.Output<string | undefined>;
  /** Whether the Service's egress gateway is in place (the `EgressReady` condition). */
  declare readonly egressReady: pulumi.Output<boolean | undefined>;
  /** A git source's last finished build: phase, branch, commit and the pushed digest (`status.lastBuild`). */
  declare readonly lastBuild: pulumi.Output<
    Pick<BuildStatus, "phase" | "branch" | "commit" | "digest"> | undefined
  >;
  /** An OCI source named by tag: the digest the tag last resolved to, and when (`status.resolvedBundle`). */
  declare readonly resolvedBundle: pulumi.Output<ResolvedBundleStatus | undefined>;

  constructor(name: string, args: ServiceArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      "Service",
      name,
      { ...args },
      ["latestRevision", "liveRevision", "egressReady", "lastBuild", "resolvedBundle"],
      opts,
    );
  }
}

export type ServiceRevisionArgs = ApiResourceArgs<ServiceRevisionSpecInput>;

/** An immutable, digest-pinned serving configuration (`compute.example.dev/v1alpha1`). */
export class ServiceRevision extends ApiResource<ServiceRevisionSpec, ObjectStatus> {
  /** The digest of the bundle this revision runs. */
  declare readonly bundleDigest: pulumi.Output<string>;

  constructor(name: string, args: ServiceRevisionArgs, opts?: pulumi.CustomResourceOptions) {
    super("ServiceRevision", name, { ...args }, ["bundleDigest"], opts);
  }
}
