import { readFileSync } from "node:fs";
import path from "node:path";

/** What the code reads of @exampledev/pulumi's own package.json: one source for the version and the homepage. */
export interface PackageManifest {
  version: string;
  homepage: string;
}

let cached: PackageManifest | undefined;

/**
 * The package's manifest, found at the package root: two folders above this module in the sources, three in
 * dist/ (`dist/sdk/shared`).
 */
export function packageManifest(): PackageManifest {
  if (cached !== undefined) return cached;
  for (const up of ["../..", "../../.."]) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(__dirname, up, "package.json"), "utf8"));
      if (manifest.name === "@exampledev/pulumi") {
        cached = { version: String(manifest.version), homepage: String(manifest.homepage) };
        return cached;
      }
    } catch {
      // Not the package root at this depth.
    }
  }
  throw new Error("the @exampledev/pulumi package.json was not found above sdk/shared");
}
