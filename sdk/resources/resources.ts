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
import type { ResolvedBundleStatus } from "../schema/status";
import { ApiResource, type ApiResourceArgs } from "./api-resource";
import { type BuildOutput, serviceOutputs, serviceRevisionOutputs } from "./kind-outputs";

export type ProxyArgs = ApiResourceArgs<ProxySpecInput>;

/** A proxy deployment (`core.example.dev/v1alpha2`). */
export class Proxy extends ApiResource<ProxySpec, ObjectStatus> {
  constructor(name: string, args: ProxyArgs, opts?: pulumi.CustomResourceOptions) {
    super("Proxy", name, { ...args }, opts);
  }
}

export type ServiceArgs = ApiResourceArgs<ServiceSpecInput>;

/** A deployable bundle and the template its revisions are minted from (`compute.example.dev/v1alpha1`). */
export class Service extends ApiResource<ServiceSpec, ServiceStatus> {
  /** The revision the controller minted for the current template and bundle digest. */
  readonly latestRevision: pulumi.Output<string | undefined>;
  /** The revision selected to serve: `spec.liveRevision` when pinned, else the latest. */
  readonly liveRevision: pulumi.Output<string | undefined>;
  /** Whether the Service's egress gateway is in place (the `EgressReady` condition). */
  readonly egressReady: pulumi.Output<boolean | undefined>;
  /** A git source's last finished build: phase, branch, commit and the pushed digest (`status.lastBuild`). */
  readonly lastBuild: pulumi.Output<BuildOutput | undefined>;
  /** An OCI source named by tag: the digest the tag last resolved to, and when (`status.resolvedBundle`). */
  readonly resolvedBundle: pulumi.Output<ResolvedBundleStatus | undefined>;

  constructor(name: string, args: ServiceArgs, opts?: pulumi.CustomResourceOptions) {
    super("Service", name, { ...args }, opts);
    // Derived from status here, not registered with the engine: see kind-outputs.ts.
    const outputs = this.status.apply(serviceOutputs);
    this.latestRevision = outputs.apply((o) => o.latestRevision);
    this.liveRevision = outputs.apply((o) => o.liveRevision);
    this.egressReady = outputs.apply((o) => o.egressReady);
    this.lastBuild = outputs.apply((o) => o.lastBuild);
    this.resolvedBundle = outputs.apply((o) => o.resolvedBundle);
  }
}

export type ServiceRevisionArgs = ApiResourceArgs<ServiceRevisionSpecInput>;

/** An immutable, digest-pinned serving configuration (`compute.example.dev/v1alpha1`). */
export class ServiceRevision extends ApiResource<ServiceRevisionSpec, ObjectStatus> {
  /** The digest of the bundle this revision runs. */
  readonly bundleDigest: pulumi.Output<string>;

  constructor(name: string, args: ServiceRevisionArgs, opts?: pulumi.CustomResourceOptions) {
    super("ServiceRevision", name, { ...args }, opts);
    // The schema requires bundle.digest, so a stored spec always has one.
    this.bundleDigest = this.spec.apply((spec) => serviceRevisionOutputs(spec).bundleDigest as string);
  }
}
