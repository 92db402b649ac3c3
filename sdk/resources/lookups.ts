// Functions that read objects a stack does not manage (docs/lookups.md), in the two forms Pulumi's generated
// SDKs have: `getX(args)` returns a promise, `getXOutput(args)` takes Inputs and returns an Output. The
// dynamic-provider host serves no Invoke, so they run in the program's process: they read the provider's
// settings from the stack's configuration (`exampledev:*`, secrets included) and the EXAMPLEDEV_* variables,
// resolved by the provider's own code (provider/settings.ts), and call the API with the typed client. They run
// at preview as at up.
import * as pulumi from "@pulumi/pulumi";
import type { ObjectMeta, ObjectStatus, ServiceStatus } from "../client/types";
import type { KindName, ProxySpec, ServiceRevisionSpec, ServiceSpec } from "../schema";
import {
  KIND_OUTPUTS,
  type OutputSource,
  type ServiceOutputs,
  type ServiceRevisionOutputs,
} from "./kind-outputs";
import { markSecretInputs } from "./secret-inputs";

/** An object as the API returns it (secret values as its placeholders, `<API_KEY>`, `<ACCESS_TOKEN>`). */
export interface LookedUpObject<Spec, Status> {
  metadata: Omit<ObjectMeta, "managedFields">;
  spec: Spec;
  status: Status;
}

export type GetProxyResult = LookedUpObject<ProxySpec, ObjectStatus>;
/** A Service with the outputs the `Service` class derives from its status (`latestRevision`, ...). */
export type GetServiceResult = LookedUpObject<ServiceSpec, ServiceStatus> & ServiceOutputs;
/** A ServiceRevision with the digest of the bundle it runs. */
export type GetServiceRevisionResult = LookedUpObject<ServiceRevisionSpec, ObjectStatus> &
  ServiceRevisionOutputs;

export interface GetArgs {
  /** The object's name (`metadata.name`). */
  name: string;
}

export interface ListArgs {
  /** A Kubernetes label selector (`tier=edge,team in (a,b)`), sent as `?labelSelector=`. */
  labelSelector?: string;
}

export interface ListServiceRevisionsArgs extends ListArgs {
  /** Only the revisions this Service owns (minted by the controller for it). */
  service?: string;
}

/** Every page of the list, oldest first. */
export interface ListResult<T> {
  items: T[];
}

type InputsOf<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/** The stack's configuration as the provider's settings read it: the raw value of each full key. */
const stackConfig = { get: (key: string) => pulumi.runtime.getConfig(key) };

/** One lookup with a client of its own, closed after it (no connection keeps the program alive). */
async function withLookups<T>(
  use: (lookups: import("../../provider/lookups").Lookups) => Promise<T>,
): Promise<T> {
  // Loaded on first use: programs that look nothing up do not load the provider's code.
  const { Lookups } = require("../../provider/lookups") as typeof import("../../provider/lookups");
  const lookups = Lookups.fromConfig(stackConfig);
  try {
    return await use(lookups);
  } finally {
    await lookups.close();
  }
}

function derived(kind: KindName, object: OutputSource): Record<string, unknown> {
  return KIND_OUTPUTS[kind](object);
}

async function getObject<T>(kind: KindName, args: GetArgs): Promise<T> {
  const object = await withLookups((lookups) => lookups.get(kind, args.name));
  return { ...object, ...derived(kind, object) } as T;
}

async function listObjects<T>(kind: KindName, args: ListServiceRevisionsArgs = {}): Promise<ListResult<T>> {
  const items = await withLookups((lookups) => lookups.list(kind, args));
  return { items: items.map((object) => ({ ...object, ...derived(kind, object) }) as T) };
}

/** The object with its secret fields (placeholders from the API) marked secret, as the resource classes mark them. */
function marked<T extends { spec: unknown }>(kind: KindName, object: T): pulumi.Output<T> {
  return pulumi.output({
    ...object,
    spec: markSecretInputs(kind, object.spec),
  }) as unknown as pulumi.Output<T>;
}

function outputOf<A, T extends { spec: unknown }>(
  kind: KindName,
  args: InputsOf<A>,
  run: (args: A) => Promise<T>,
): pulumi.Output<T> {
  return pulumi
    .output(args)
    .apply((plain) => run(plain as A))
    .apply((object) => marked(kind, object));
}

function listOutputOf<A, T extends { spec: unknown }>(
  kind: KindName,
  args: InputsOf<A> | undefined,
  run: (args: A) => Promise<ListResult<T>>,
): pulumi.Output<ListResult<T>> {
  return pulumi
    .output(args ?? {})
    .apply((plain) => run(plain as A))
    .apply(
      ({ items }) =>
        pulumi.output({ items: items.map((item) => marked(kind, item)) }) as pulumi.Output<ListResult<T>>,
    );
}

/** The Proxy named `name` as the API returns it. Fails with `no Proxy "<name>" at <API>` when there is none. */
export function getProxy(args: GetArgs): Promise<GetProxyResult> {
  return getObject("Proxy", args);
}
export function getProxyOutput(args: InputsOf<GetArgs>): pulumi.Output<GetProxyResult> {
  return outputOf("Proxy", args, getProxy);
}

/** The Service named `name`, with its derived outputs. Fails with `no Service "<name>" at <API>` when there is none. */
export function getService(args: GetArgs): Promise<GetServiceResult> {
  return getObject("Service", args);
}
export function getServiceOutput(args: InputsOf<GetArgs>): pulumi.Output<GetServiceResult> {
  return outputOf("Service", args, getService);
}

/** The ServiceRevision named `name`, with its `bundleDigest`. */
export function getServiceRevision(args: GetArgs): Promise<GetServiceRevisionResult> {
  return getObject("ServiceRevision", args);
}
export function getServiceRevisionOutput(args: InputsOf<GetArgs>): pulumi.Output<GetServiceRevisionResult> {
  return outputOf("ServiceRevision", args, getServiceRevision);
}

/** Every Proxy (matching `labelSelector`), oldest first. */
export function listProxies(args: ListArgs = {}): Promise<ListResult<GetProxyResult>> {
  return listObjects("Proxy", args);
}
export function listProxiesOutput(args?: InputsOf<ListArgs>): pulumi.Output<ListResult<GetProxyResult>> {
  return listOutputOf("Proxy", args, listProxies);
}

/** Every Service (matching `labelSelector`), oldest first, with their derived outputs. */
export function listServices(args: ListArgs = {}): Promise<ListResult<GetServiceResult>> {
  return listObjects("Service", args);
}
export function listServicesOutput(args?: InputsOf<ListArgs>): pulumi.Output<ListResult<GetServiceResult>> {
  return listOutputOf("Service", args, listServices);
}

/** Every ServiceRevision (of `service`, matching `labelSelector`), oldest first, with their `bundleDigest`. */
export function listServiceRevisions(
  args: ListServiceRevisionsArgs = {},
): Promise<ListResult<GetServiceRevisionResult>> {
  return listObjects("ServiceRevision", args);
}
export function listServiceRevisionsOutput(
  args?: InputsOf<ListServiceRevisionsArgs>,
): pulumi.Output<ListResult<GetServiceRevisionResult>> {
  return listOutputOf("ServiceRevision", args, listServiceRevisions);
}
