#!/usr/bin/env node
// `exampledev-policy-report`: turns one `pulumi preview --json --event-log <file>` run into GitHub
// annotations on the program's lines (printed as workflow commands) and a job summary. It exits 0 once it
// has reported: the preview's own exit status is what fails the check.
import "../../sdk/shared/node-version"; // first: fails on a Node older than the package needs, before anything loads
import { appendFileSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { today } from "../dates";
import { type PackConfig, readPackConfig } from "../pack-config";
import { POLICIES } from "../policies";
import { audit } from "./audit";
import { exemptionsSummary, judgeExceptions } from "./exemptions";
import { annotation, placement, summary } from "./github";
import { findings, sourceLocations } from "./preview-results";
import { mintingServices, revisionsSummary } from "./revisions";

const USAGE =
  "usage: exampledev-policy-report --preview <preview.json> --events <events.jsonl> [--policy-pack-config <file>] [--project-dir <dir>] [--repository-root <dir>] [--summary <file>]";

function main(): void {
  const { values } = parseArgs({
    options: {
      preview: { type: "string" },
      events: { type: "string" },
      "policy-pack-config": { type: "string" },
      "project-dir": { type: "string", default: process.cwd() },
      "repository-root": { type: "string", default: process.env.GITHUB_WORKSPACE ?? process.cwd() },
      summary: { type: "string", default: process.env.GITHUB_STEP_SUMMARY },
    },
  });
  if (values.preview === undefined || values.events === undefined) throw new Error(USAGE);
  const previewJson = readFileSync(values.preview, "utf8");
  const locations = sourceLocations(previewJson);
  // The preview's config file, when given: its exceptions' owners and expiries, judged as the pack judges them.
  const configFile = values["policy-pack-config"];
  const config: PackConfig | undefined =
    configFile === undefined
      ? undefined
      : readPackConfig(readFileSync(configFile, "utf8"), new Set(POLICIES.map(({ name }) => name)));
  const reported = findings(readFileSync(values.events, "utf8"));
  const judged = config === undefined ? reported : judgeExceptions(reported, config, today());
  const found = judged.map((finding) => {
    const location = finding.urn === undefined ? undefined : locations.get(finding.urn);
    const place = location && placement(location, values["project-dir"], values["repository-root"]);
    return { finding, place };
  });
  for (const { finding, place } of found) console.log(annotation(finding, place));
  // Beside the findings: the Services whose change mints a revision, and why (a shared template's blast radius).
  const revisions = revisionsSummary(mintingServices(previewJson));
  const exempted = exemptionsSummary(
    found.map(({ finding }) => finding),
    config,
  );
  if (values.summary) appendFileSync(values.summary, `${summary(found)}\n${exempted}\n${revisions}`);
}

const fail = (error: unknown, status: number) => {
  console.error(`exampledev-policy-report: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = status;
};

if (process.argv[2] === "audit") {
  // `audit`: the live objects of an API, judged by the pack (policies/report/audit.ts); exits 0, 1 or 2.
  audit(process.argv.slice(3)).then(
    (status) => {
      process.exitCode = status;
    },
    // 1 says "mandatory violations": an audit that could not judge (a usage error, a configuration error, an
    // API it cannot read) exits 2.
    (error: unknown) => fail(error, 2),
  );
} else {
  try {
    main();
  } catch (error: unknown) {
    fail(error, 1);
  }
}
