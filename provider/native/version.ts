import { packageManifest } from "../../sdk/shared/package-manifest";

/**
 * The plugin's version: the package's, so `pulumi plugin install resource exampledev <version>`, the schema
 * and the generated SDKs (which ask the engine for this version) always agree.
 */
export function pluginVersion(): string {
  return packageManifest().version;
}
