// Entry point of the plugin `pulumi-resource-exampledev` (see scripts/native/plugin-install.ts, which
// installs an executable that starts the pinned Node on this file).
import "../../sdk/shared/node-version"; // first: fails on a Node older than the package needs, before anything loads
import { serve } from "./server";
import { pluginVersion } from "./version";

serve(process.argv.slice(2), pluginVersion()).catch((error: unknown) => {
  console.error(`pulumi-resource-exampledev: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
