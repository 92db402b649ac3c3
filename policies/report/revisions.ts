// The Services a preview's changes mint a new revision of, and why: read from the `pulumi preview --json`
// output (each step's old and new state), decided by the one rule in sdk/schema/minting.ts that the
// provider's preview also follows. A change of a template many Services share shows as one table.
import { kindOfTypeToken } from "../../sdk/resources/type-tokens";
import { currentBundle, type MintDecision, mintDecision } from "../../sdk/schema/minting";
import { UNKNOWN } from "../../sdk/schema/sentinel";
import { isRecord } from "../../sdk/shared/records";

export interface MintingService {
  urn: string;
  /** The object's name (`metadata.name`), when known. */
  name: string | undefined;
  /** The revision it runs now (status.latestRevision), when it has one. */
  latestRevision: string | undefined;
  decision: MintDecision;
}

/** Steps that write the Service: what `up` would create or change. */
const CREATES = new Set(["create", "replace", "create-replacement"]);
const UPDATES = new Set(["update"]);

/** How the CLI's JSON may show a value not known at preview. */
const UNKNOWN_TEXTS = new Set([UNKNOWN, "[unknown]", "output<string>"]);

function withUnknowns(value: unknown): unknown {
  if (typeof value === "string") return UNKNOWN_TEXTS.has(value) ? UNKNOWN : value;
  if (Array.isArray(value)) return value.map(withUnknowns);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withUnknowns(v)]));
  return value;
}

const stateOf = (value: unknown) => (isRecord(value) ? value : {});

/** Every Service of the preview whose change mints (or may mint) a revision, in the preview's order. */
export function mintingServices(previewJson: string): MintingService[] {
  const preview: unknown = JSON.parse(previewJson);
  const steps = isRecord(preview) && Array.isArray(preview.steps) ? preview.steps : [];
  const found: MintingService[] = [];
  for (const step of steps) {
    if (!isRecord(step) || typeof step.urn !== "string" || typeof step.op !== "string") continue;
    const created = CREATES.has(step.op);
    if (!created && !UPDATES.has(step.op)) continue;
    const next = stateOf(step.newState);
    const previous = stateOf(step.oldState);
    const type = typeof next.type === "string" ? next.type : previous.type;
    if (typeof type !== "string" || kindOfTypeToken(type) !== "Service") continue;
    const after = stateOf(withUnknowns(next.inputs));
    const status = stateOf(stateOf(previous.outputs).status);
    const decision = mintDecision(
      created ? undefined : stateOf(previous.inputs),
      after,
      currentBundle(status),
    );
    if (decision.outcome === "none") continue;
    const name = stateOf(after.metadata).name;
    found.push({
      urn: step.urn,
      name: typeof name === "string" && name !== UNKNOWN ? name : undefined,
      latestRevision: typeof status.latestRevision === "string" ? status.latestRevision : undefined,
      decision,
    });
  }
  return found;
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", "<br>");
const resourceName = (urn: string) => urn.split("::").at(-1) ?? urn;

/** The job summary's section: one row per Service that mints, with each reason. */
export function revisionsSummary(minting: readonly MintingService[]): string {
  const heading = "### Services that mint a new revision";
  if (minting.length === 0) return `${heading}\n\nNo change mints a revision.\n`;
  const certain = minting.filter(({ decision }) => decision.outcome === "mints").length;
  const rows = minting.map(({ urn, name, latestRevision, decision }) => {
    const why = decision.reasons.map(({ message }) => message).join("<br>");
    const outcome = decision.outcome === "mints" ? "mints" : "may mint";
    return `| ${cell(resourceName(urn))} | ${name ? `\`${name}\`` : ""} | ${latestRevision ? `\`${latestRevision}\`` : ""} | ${outcome} | ${cell(why)} |`;
  });
  return [
    heading,
    "",
    `${certain} mint${certain === 1 ? "s" : ""} a new revision at \`pulumi up\`, ${minting.length - certain} may (what \`up\` finds decides: a tag's target, a build, a value computed by another resource). Unless \`spec.liveRevision\` pins one, the new revision goes live.`,
    "",
    "| resource | Service | revision now | at up | why |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}
