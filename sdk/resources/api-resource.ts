import * as pulumi from "@pulumi/pulumi";
import type { KindName } from "../schema";
import { providerSource } from "./provider-source";
import { markSecretInputs } from "./secret-inputs";
import { noticeSettingsOnce } from "./settings-notice";
import { TYPE_TOKENS } from "./type-tokens";

/** `pulumi.Input` at every level of T, so any part of a spec can come from another resource's output. */
export type DeepInput<T> = T extends string | number | boolean | undefined | null
  ? pulumi.Input<T>
  : T extends readonly (infer U)[]
    ? pulumi.Input<DeepInput<U>[]>
    : pulumi.Input<{ [K in keyof T]: DeepInput<T[K]> }>;

export interface ObjectMetadataArgs {
  /**
   * The object's name on the server. Default: the Pulumi name made DNS-1123 plus 5 hex derived from the
   * resource's URN (`api-3f9c1`), the same in preview and up, the next free one on a replacement; kept in state.
   */
  name?: pulumi.Input<string>;
  labels?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  annotations?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export interface ApiResourceArgs<SpecInput> {
  metadata?: pulumi.Input<ObjectMetadataArgs>;
  spec: DeepInput<SpecInput>;
  /**
   * Take over an object of the same name that already exists on the server (its spec is replaced by this
   * one). Without it, creating over an existing object fails: the provider never upserts silently.
   */
  adopt?: pulumi.Input<boolean>;
  /**
   * How long the provider waits, in seconds (default 300): create and update wait for the kind's readiness
   * (a Service: the controller accepts the new generation and mints its revision), delete waits until the
   * object is gone (a Proxy drains first, until the controller takes its finalizer off). Pulumi's `customTimeouts` option does not
   * reach dynamic providers; this does. `skip: true` returns from create and update as soon as the API
   * stored the object.
   */
  await?: { timeoutSeconds?: number; skip?: boolean };
}

/** Metadata as the server set it. */
export interface ObjectMetadata {
  name: string;
  uid: string;
  resourceVersion: string;
  generation: number;
  creationTimestamp: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Whether the program wrote the object's name as a plain string (not an Output, not left to the provider). */
function namesItself(metadata: pulumi.Input<ObjectMetadataArgs>): boolean {
  return typeof (metadata as ObjectMetadataArgs).name === "string" && !pulumi.Output.isInstance(metadata);
}

/**
 * The URN the engine gives the resource (`urn:pulumi:<stack>::<project>::<parent types$><type>::<name>`): known
 * at once without a parent; a parent's URN is an Output, known in preview too.
 */
function urnOf(type: string, name: string, parent: pulumi.Resource | undefined): pulumi.Input<string> {
  return parent === undefined
    ? `urn:pulumi:${pulumi.getStack()}::${pulumi.getProject()}::${type}::${name}`
    : pulumi.createUrn(name, type, parent);
}

/** The properties of a `get`: the outputs to fill, each undefined (args other than the class's own are ignored). */
function lookupProps(classOutputs: Record<string, unknown>): Record<string, unknown> {
  const own = Object.keys(classOutputs).filter((key) => key.startsWith("__"));
  return {
    ...Object.fromEntries(own.map((key) => [key, undefined])),
    metadata: undefined,
    spec: undefined,
    status: undefined,
  };
}

/**
 * The base of the three resource classes: one API object, managed through the dynamic provider. It is what
 * `pulumi.dynamic.Resource` registers (its type token, a `__provider` the dynamic-provider host loads), with
 * the provider written as one line of source (provider-source.ts) instead of a serialized closure.
 */
export abstract class ApiResource<Spec, Status> extends pulumi.CustomResource {
  declare readonly metadata: pulumi.Output<ObjectMetadata>;
  /** The spec as stored, defaults applied. */
  declare readonly spec: pulumi.Output<Spec>;
  declare readonly status: pulumi.Output<Status>;

  protected constructor(
    kind: KindName,
    name: string,
    args: ApiResourceArgs<unknown> & Record<string, unknown>,
    opts?: pulumi.CustomResourceOptions,
  ) {
    const { spec, ...rest } = args;
    const metadata = args.metadata ?? {};
    const props: Record<string, unknown> = {
      ...rest,
      metadata,
      spec: markSecretInputs(kind, spec),
      // The provider names an unnamed object after the logical name, with a suffix derived from the URN (the
      // same in every run); a program that names it plainly does not need them sent (every property registered
      // costs the program a few promises with stack traces).
      ...(!namesItself(metadata) && {
        logicalName: name,
        nameSeed: urnOf(TYPE_TOKENS[kind], name, opts?.parent),
      }),
      status: undefined,
    };
    // A static `get` (opts.id, the object's name): the engine reads the object, sending only the provider's
    // source (ObjectProvider.read finds the object by name, whoever manages it); every output is the live one's.
    const sent = opts?.id !== undefined ? lookupProps(rest) : props;
    super(TYPE_TOKENS[kind], name, { ...sent, __provider: providerSource(kind) }, opts);
    noticeSettingsOnce();
  }
}
