// What one `pulumi preview --json --event-log <file>` run says about the policy pack's findings, read from its
// two outputs. The JSON on stdout holds each resource's source position (`sourcePosition` and `stackTrace` of
// its step's state) but, as of Pulumi 3.259, no policy results; the event log holds the policy results
// (`policyEvent`, `policyRemediationEvent`) and the diagnostics by resource URN, but no source positions.
import { isRecord } from "../../sdk/shared/records";

/** A place in the program: a path relative to the Pulumi project's directory, 1-based line and column. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

export type FindingLevel = "mandatory" | "advisory" | "remediate" | "error" | "warning" | "exempted";

/** A policy violation, a remediation or a diagnostic of the preview, with the resource it is about. */
export interface Finding {
  /** The policy's name, or "pulumi" for a diagnostic (such as a provider's check failure). */
  source: string;
  level: FindingLevel;
  urn: string | undefined;
  message: string;
  /** The Pulumi policy exception the CLI applied to this violation (the lowest ID of those that matched). */
  exception?: { id: string; reason: string };
}

const POSITION = /^project:\/\/\/(.+)#(\d+),(\d+)$/;

/** A frame inside the program's own files: under the project directory and not a dependency. */
function programLocation(position: unknown): SourceLocation | undefined {
  if (typeof position !== "string") return undefined;
  const match = POSITION.exec(position);
  if (match === null) return undefined;
  const [, file = "", line, column] = match;
  if (file.startsWith("../") || file.split("/").includes("node_modules")) return undefined;
  return { file: decodeURIComponent(file), line: Number(line), column: Number(column) };
}

/**
 * Where the program declared each resource, by URN: the outermost frame of its registration's stack trace
 * that lies in the program's own files. A resource made by a helper function of the program is so placed on
 * the call that names it, not inside the helper; `sourcePosition` alone would name the innermost frame,
 * which for this package's resource classes is inside the package.
 */
export function sourceLocations(previewJson: string): Map<string, SourceLocation> {
  const preview: unknown = JSON.parse(previewJson);
  const steps = isRecord(preview) && Array.isArray(preview.steps) ? preview.steps : [];
  const locations = new Map<string, SourceLocation>();
  for (const step of steps) {
    if (!isRecord(step) || typeof step.urn !== "string") continue;
    const state = isRecord(step.newState) ? step.newState : step.oldState;
    const frames = isRecord(state) && Array.isArray(state.stackTrace) ? state.stackTrace : [];
    const inProgram = frames.flatMap((frame) =>
      isRecord(frame) ? [programLocation(frame.sourcePosition)].filter((found) => found !== undefined) : [],
    );
    const outermost = inProgram.at(-1);
    if (outermost !== undefined) locations.set(step.urn, outermost);
  }
  return locations;
}

function policyFinding(event: Record<string, unknown>, level: FindingLevel, message: string): Finding {
  const [exception] = Array.isArray(event.exceptions) ? event.exceptions.filter(isRecord) : [];
  return {
    source: String(event.policyName),
    level: exception ? "exempted" : level,
    urn: typeof event.resourceUrn === "string" && event.resourceUrn !== "" ? event.resourceUrn : undefined,
    message,
    ...(exception && { exception: { id: String(exception.id), reason: String(exception.reason) } }),
  };
}

const LEVELS: readonly string[] = ["mandatory", "advisory", "remediate"];

/** The findings of the event log (one JSON engine event a line), in the order the engine reported them. */
export function findings(eventLog: string): Finding[] {
  const found: Finding[] = [];
  for (const line of eventLog.split("\n")) {
    if (line.trim() === "") continue;
    const event: unknown = JSON.parse(line);
    if (!isRecord(event)) continue;
    const { policyEvent, policyRemediationEvent, diagnosticEvent } = event;
    if (isRecord(policyEvent) && LEVELS.includes(String(policyEvent.enforcementLevel))) {
      found.push(
        policyFinding(
          policyEvent,
          policyEvent.enforcementLevel as FindingLevel,
          String(policyEvent.message).trim(),
        ),
      );
    } else if (isRecord(policyRemediationEvent)) {
      const message =
        "Remediated: the policy changed this resource's inputs, and the preview shows the changed ones; commit the change to the program to keep it there.";
      found.push(policyFinding(policyRemediationEvent, "remediate", message));
    } else if (
      isRecord(diagnosticEvent) &&
      typeof diagnosticEvent.urn === "string" &&
      diagnosticEvent.urn !== "" &&
      (diagnosticEvent.severity === "error" || diagnosticEvent.severity === "warning")
    ) {
      found.push({
        source: "pulumi",
        level: diagnosticEvent.severity,
        urn: diagnosticEvent.urn,
        message: String(diagnosticEvent.message).trim(),
      });
    }
  }
  return found;
}
