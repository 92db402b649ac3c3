export type { ApiResourceArgs, DeepInput, ObjectMetadata, ObjectMetadataArgs } from "./api-resource";
export {
  type GetArgs,
  type GetProxyResult,
  type GetServiceResult,
  type GetServiceRevisionResult,
  getProxy,
  getProxyOutput,
  getService,
  getServiceOutput,
  getServiceRevision,
  getServiceRevisionOutput,
  type ListArgs,
  type ListResult,
  type ListServiceRevisionsArgs,
  type LookedUpObject,
  listProxies,
  listProxiesOutput,
  listServiceRevisions,
  listServiceRevisionsOutput,
  listServices,
  listServicesOutput,
} from "./lookups";
export {
  Proxy,
  type ProxyArgs,
  Service,
  type ServiceArgs,
  ServiceRevision,
  type ServiceRevisionArgs,
} from "./resources";
export { TYPE_TOKENS } from "./type-tokens";
