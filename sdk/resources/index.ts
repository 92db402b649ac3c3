export {
  type ApiResourceArgs,
  type DeepInput,
  type ObjectMetadata,
  type ObjectMetadataArgs,
  TYPE_TOKENS,
} from "./api-resource";
export {
  Proxy,
  type ProxyArgs,
  Service,
  type ServiceArgs,
  ServiceRevision,
  type ServiceRevisionArgs,
} from "./resources";
