// `npm run docs`: regenerates the documentation's generated parts (rule, policy and configuration tables) and
// the files generated from the schema, from the data they come from. `npm run docs:check` (`--check`) writes
// nothing and fails when a file is out of date.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { generatedDocs, REPO } from "./lib/docs";

function main(): void {
  const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
  const stale = generatedDocs().filter(({ current, generated }) => current !== generated);
  if (values.check) {
    for (const { file } of stale) console.error(`${file} is out of date with the code it documents`);
    if (stale.length > 0) {
      console.error("run `npm run docs` and commit the result");
      process.exitCode = 1;
    }
    return;
  }
  for (const { file, generated } of stale) {
    writeFileSync(path.join(REPO, file), generated);
    console.log(`docs: regenerated ${file}`);
  }
  if (stale.length === 0) console.log("docs: up to date");
}

try {
  main();
} catch (error: unknown) {
  console.error(`docs: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
