// `npm run native:schema`: writes provider/native/schema.json, the native package's Pulumi schema generated
// from the zod schema; `--check` writes nothing and fails when the committed file is out of date.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { SCHEMA_FILE, schemaText } from "../../provider/native/schema-file";
import { REPO } from "../lib/docs";

const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
const file = path.join(REPO, SCHEMA_FILE);
const generated = schemaText();
let current = "";
try {
  current = readFileSync(file, "utf8");
} catch {
  // Not written yet.
}
if (current === generated) {
  console.log(`native:schema: ${SCHEMA_FILE} is up to date`);
} else if (values.check) {
  console.error(
    `${SCHEMA_FILE} is out of date with the zod schema: run \`npm run native:schema\` and commit it`,
  );
  process.exitCode = 1;
} else {
  writeFileSync(file, generated);
  console.log(`native:schema: wrote ${SCHEMA_FILE}`);
}
