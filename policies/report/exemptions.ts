// The job summary's section of the exemptions a preview honoured: each exempted violation, which the pack
// reports as an advisory notice (policies/exemptions.ts), with its reason, owner and expiry.
import { parseExemptionNotice } from "../exemptions";
import { resourceName } from "./github";
import type { Finding } from "./preview-results";

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", "<br>");

export function exemptionsSummary(findings: readonly Finding[]): string {
  const rows = findings.flatMap((finding) => {
    const exemption = parseExemptionNotice(finding.message);
    if (exemption === undefined) return [];
    return [
      `| \`${finding.source}\` | ${cell(resourceName(finding.urn) ?? "(stack)")} | ${exemption.expires} | ${cell(exemption.owner)} | ${cell(exemption.reason)} |`,
    ];
  });
  const heading = "### Exempted violations";
  if (rows.length === 0) return `${heading}\n\nNo violation was exempted.\n`;
  return [
    heading,
    "",
    "| policy | resource | until | owner | reason |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}
