import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The plugin's version: the package's, so `pulumi plugin install resource exampledev <version>`, the schema
 * and the generated SDKs (which ask the engine for this version) always agree. Read from package.json at the
 * package root, two folders above this module in the sources and three in dist/.
 */
export function pluginVersion(): string {
  for (const up of ["../..", "../../.."]) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(__dirname, up, "package.json"), "utf8"));
      if (manifest.name === "@exampledev/pulumi") return manifest.version as string;
    } catch {
      // Not the package root at this depth.
    }
  }
  throw new Error("the @exampledev/pulumi package.json was not found above the native provider");
}
