import * as pulumi from "@pulumi/pulumi";
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
import {
  type BuildOutput,
  type ServiceOutputs,
  serviceOutputs,
  serviceRevisionOutputs,
} from "./kind-outputs";

export type ProxyArgs = ApiResourceArgs<ProxySpecInput>;

/** A proxy deployment (`core.example.dev/v1alpha2`). */
export class Proxy extends ApiResource<ProxySpec, ObjectStatus> {
  constructor(name: string, args: ProxyArgs, opts?: pulumi.CustomResourceOptions) {
    super("Proxy", name, { ...args }, opts);
  }

  /**
   * Reads the existing Proxy named `id` into this program without managing it: its outputs are the live
   * object's (`metadata`, `spec` with secret values as the API's placeholders, `status`), and
   * `pulumi destroy` of this stack leaves the object alone. See docs/lookups.md.
   */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Proxy {
    return new Proxy(name, undefined as unknown as ProxyArgs, { ...opts, id });
  }
}

export type ServiceArgs = ApiResourceArgs<ServiceSpecInput>;

/** A deployable bundle and the template its revisions are minted from (`compute.example.dev/v1alpha1`). */
export class Service extends ApiResource<ServiceSpec, ServiceStatus> {
  /**
   * The revisions as the provider keeps them beside status (provider/dynamic-provider.ts): known in a preview
   * of a change that mints nothing, unknown in one that mints. Hidden from diffs by their `__`.
   */
  declare private readonly __latestRevision: pulumi.Output<string | null | undefined>;
  declare private readonly __liveRevision: pulumi.Output<string | null | undefined>;

  constructor(name: string, args: ServiceArgs, opts?: pulumi.CustomResourceOptions) {
    super("Service", name, { ...args, __latestRevision: undefined, __liveRevision: undefined }, opts);
  }

  /**
   * Reads the existing Service named `id` into this program without managing it: its outputs are the live
   * object's (`metadata`, `spec` with secret values as the API's placeholders, `status`, and the derived outputs), and
   * `pulumi destroy` of this stack leaves the object alone. See docs/lookups.md.
   */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Service {
    return new Service(name, undefined as unknown as ServiceArgs, { ...opts, id });
  }

  /**
   * The revision the controller minted for the current template and bundle digest. Unknown in a preview of a
   * change that mints a new one (template, digest, repository; a tag's Service on any write), known otherwise.
   */
  get latestRevision(): pulumi.Output<string | undefined> {
    return this.revision(this.__latestRevision, "latestRevision");
  }

  /** The revision selected to serve: `spec.liveRevision` when pinned, else the latest. */
  get liveRevision(): pulumi.Output<string | undefined> {
    return this.revision(this.__liveRevision, "liveRevision");
  }

  /** The provider's value; without one (state written before it kept them, no revision yet), status's. */
  private revision(
    kept: pulumi.Output<string | null | undefined>,
    name: "latestRevision" | "liveRevision",
  ): pulumi.Output<string | undefined> {
    return kept.apply(
      (value): pulumi.Output<string | undefined> =>
        typeof value === "string" ? pulumi.output(value) : this.derived(name),
    );
  }

  /** Whether the Service's egress gateway is in place (the `EgressReady` condition). */
  get egressReady(): pulumi.Output<boolean | undefined> {
    return this.derived("egressReady");
  }

  /** A git source's last finished build: phase, branch, commit and the pushed digest (`status.lastBuild`). */
  get lastBuild(): pulumi.Output<BuildOutput | undefined> {
    return this.derived("lastBuild");
  }

  /** An OCI source named by tag: the digest the tag last resolved to, and when (`status.resolvedBundle`). */
  get resolvedBundle(): pulumi.Output<ResolvedBundleStatus | undefined> {
    return this.derived("resolvedBundle");
  }

  private outputs?: pulumi.Output<ServiceOutputs>;

  /**
   * Derived from status when a program reads it, not registered with the engine (kind-outputs.ts): most
   * programs read one or two of these, and every Output made costs the program a few promises.
   */
  private derived<K extends keyof ServiceOutputs>(name: K): pulumi.Output<ServiceOutputs[K]> {
    this.outputs ??= this.status.apply(serviceOutputs);
    return this.outputs.apply((outputs) => outputs[name]);
  }
}

export type ServiceRevisionArgs = ApiResourceArgs<ServiceRevisionSpecInput>;

/** An immutable, digest-pinned serving configuration (`compute.example.dev/v1alpha1`). */
export class ServiceRevision extends ApiResource<ServiceRevisionSpec, ObjectStatus> {
  constructor(name: string, args: ServiceRevisionArgs, opts?: pulumi.CustomResourceOptions) {
    super("ServiceRevision", name, { ...args }, opts);
  }

  /**
   * Reads the existing ServiceRevision named `id` into this program without managing it: its outputs are the live
   * object's (`metadata`, `spec` with secret values as the API's placeholders, `status`), and
   * `pulumi destroy` of this stack leaves the object alone. See docs/lookups.md.
   */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): ServiceRevision {
    return new ServiceRevision(name, undefined as unknown as ServiceRevisionArgs, { ...opts, id });
  }

  /** The digest of the bundle this revision runs. */
  get bundleDigest(): pulumi.Output<string> {
    // Derived from the stored spec (kind-outputs.ts); the schema requires bundle.digest, so it has one.
    return this.spec.apply((spec) => serviceRevisionOutputs(spec).bundleDigest as string);
  }
}
