export type { ApiResourceArgs, DeepInput, ObjectMetadata, ObjectMetadataArgs } from "./api-resource";
export {
  Proxy,
  type ProxyArgs,
  Service,
  type ServiceArgs,
  ServiceRevision,
  type ServiceRevisionArgs,
} from "./resources";
export { TYPE_TOKENS } from "./type-tokens";
