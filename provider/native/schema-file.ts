import path from "node:path";
import { packageSchema } from "./package-schema";
import { pluginVersion } from "./version";

/** Where the generated schema is committed, relative to the repository root: `npm run generate` writes it and
 * generates the Node SDK (sdk/native) from it; `npm run gen-sdk` generates the other languages' from it. */
export const SCHEMA_FILE = path.join("provider", "native", "schema.json");

/** The committed file's text: the package schema of this version, two-space JSON and a final newline. */
export function schemaText(): string {
  return `${JSON.stringify(packageSchema(pluginVersion()), null, 2)}\n`;
}
