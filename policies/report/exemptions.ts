// The job summary's section of the violations a preview exempted: by the pack's exemptions (advisory notices,
// policies/exemptions.ts) and by Pulumi's policy exceptions (which the CLI marks on the violation), each with
// its reason, owner and expiry. With the run's config file, an exception is judged as the pack judges it
// (policies/exceptions.ts): an expired one exempts nothing, whatever the CLI marked.
import { describeException, judgeException } from "../exceptions";
import { parseExemptionNotice } from "../exemptions";
import type { PackConfig } from "../pack-config";
import { resourceName } from "./github";
import type { Finding } from "./preview-results";

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", "<br>");

/**
 * The findings with each exception judged against the config file: an expired one turns the finding back into
 * the violation it was (mandatory: `policy-exceptions` fails the preview for it), saying so.
 */
export function judgeExceptions(findings: readonly Finding[], config: PackConfig, on: string): Finding[] {
  return findings.map((finding) => {
    if (finding.exception === undefined) return finding;
    const judgement = judgeException(config.exceptions, finding.source, finding.urn, on);
    if (judgement.exempted || judgement.expired === undefined) return finding;
    const { exception: _, ...violation } = finding;
    const expired = `its ${describeException(judgement.expired)} expired on ${judgement.expired.expires}`;
    return { ...violation, level: "mandatory", message: `${finding.message} (${expired})` };
  });
}

interface ExemptedRow {
  policy: string;
  urn: string | undefined;
  exception: string;
  until: string;
  owner: string;
  reason: string;
}

function exemptedRow(finding: Finding, config: PackConfig | undefined): ExemptedRow | undefined {
  const base = { policy: finding.source, urn: finding.urn };
  if (finding.exception !== undefined) {
    const declared = config?.exceptions.find(({ id }) => id === finding.exception?.id);
    return {
      ...base,
      exception: finding.exception.id,
      until: declared?.expires ?? "",
      owner: declared?.owner ?? "",
      reason: finding.exception.reason,
    };
  }
  const notice = parseExemptionNotice(finding.message);
  return (
    notice && { ...base, exception: "", until: notice.expires, owner: notice.owner, reason: notice.reason }
  );
}

export function exemptionsSummary(findings: readonly Finding[], config?: PackConfig): string {
  const rows = findings.flatMap((finding) => {
    const row = exemptedRow(finding, config);
    if (row === undefined) return [];
    return [
      `| \`${row.policy}\` | ${cell(resourceName(row.urn) ?? "(stack)")} | ${row.exception && `\`${row.exception}\``} | ${row.until} | ${cell(row.owner)} | ${cell(row.reason)} |`,
    ];
  });
  const heading = "### Exempted violations";
  if (rows.length === 0) return `${heading}\n\nNo violation was exempted.\n`;
  return [
    heading,
    "",
    "| policy | resource | exception | until | owner | reason |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}
