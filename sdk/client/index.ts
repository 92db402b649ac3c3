import "../shared/node-version"; // first: fails on a Node older than the package needs, before anything loads

export * from "../errors";
export { type Client, type ClientOptions, createClient } from "./client";
export type { Lease, LeaseClient, LeaseSpec } from "./leases";
export { CREATE_TOKEN_ANNOTATION, createTokenOf, newCreateToken, withCreateToken } from "./own-create";
export type { RetryOptions } from "./retry";
export type { ConnectionOptions, Sleep } from "./transport";
export type {
  ApiObject,
  ApplyConfiguration,
  ApplyOptions,
  CallOptions,
  Condition,
  ConditionStatus,
  CreateOptions,
  DeepPartial,
  DeleteCollectionOptions,
  DeleteOptions,
  DryRun,
  FieldValidation,
  JsonPatchOperation,
  KindTypes,
  ListMeta,
  ListOptions,
  ManagedFieldsEntry,
  MergePatch,
  ObjectInput,
  ObjectList,
  ObjectMeta,
  ObjectStatus,
  OwnerReference,
  PatchOptions,
  Preconditions,
  Proxy,
  ProxyInput,
  ResourceClient,
  Service,
  ServiceInput,
  ServiceRevision,
  ServiceRevisionInput,
  ServiceStatus,
  WaitOptions,
  WriteOptions,
} from "./types";
export {
  type ApiWarning,
  MISC_PERSISTENT_WARNING,
  parseWarningHeaders,
  type WarningHandler,
  warningsOf,
} from "./warnings";
export type { WatchEvent, WatchEventType, WatchOptions, WatchStream } from "./watch";
