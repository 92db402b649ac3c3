// The preview's findings for GitHub Actions: workflow commands that annotate the program's lines in the pull
// request, and a Markdown report for the job summary.
import path from "node:path";
import type { Finding, FindingLevel, SourceLocation } from "./preview-results";

/** How each level shows in the pull request: what fails the check is an error. */
const ANNOTATION: Readonly<Record<FindingLevel, "error" | "warning" | "notice">> = {
  mandatory: "error",
  error: "error",
  advisory: "warning",
  warning: "warning",
  remediate: "notice",
  exempted: "notice",
};

/** Escapes for a workflow command's message and its properties (GitHub's own toolkit does the same). */
const escapeData = (text: string) =>
  text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
const escapeProperty = (text: string) => escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");

/** The resource's logical name from its URN (`urn:pulumi:stack::project::type::name`). */
export function resourceName(urn: string | undefined): string | undefined {
  return urn?.split("::").at(-1);
}

/** Where a finding points in the repository: the file relative to its root, line and column. */
export interface Placement {
  file: string;
  line: number;
  column: number;
}

/** A program location (relative to the project directory) as a path from the repository root. */
export function placement(location: SourceLocation, projectDir: string, repositoryRoot: string): Placement {
  const file = path
    .relative(repositoryRoot, path.resolve(projectDir, location.file))
    .split(path.sep)
    .join("/");
  return { file, line: location.line, column: location.column };
}

/** One `::error file=…,line=…,title=…::message` command; without a place when the finding has none. */
export function annotation(finding: Finding, place: Placement | undefined): string {
  const title = `${finding.source} [${finding.level}]${finding.urn ? ` on ${resourceName(finding.urn)}` : ""}`;
  const properties = [
    ...(place ? [`file=${escapeProperty(place.file)}`, `line=${place.line}`, `col=${place.column}`] : []),
    `title=${escapeProperty(title)}`,
  ];
  return `::${ANNOTATION[finding.level]} ${properties.join(",")}::${escapeData(finding.message)}`;
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", "<br>");

/** The job summary: every finding in a table, with a link-free `file:line` (the annotations link). */
export function summary(found: readonly { finding: Finding; place: Placement | undefined }[]): string {
  const heading = "## pulumi preview with the exampledev policy pack";
  if (found.length === 0) return `${heading}\n\nNo policy violations, remediations or resource errors.\n`;
  const rows = found.map(
    ({ finding, place }) =>
      `| ${finding.level} | \`${finding.source}\` | ${cell(resourceName(finding.urn) ?? "(stack)")} | ${place ? `\`${place.file}:${place.line}\`` : ""} | ${cell(finding.message)} |`,
  );
  return [
    heading,
    "",
    "| level | policy | resource | where | message |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}
