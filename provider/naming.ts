import { createHash } from "node:crypto";
import { isUnknown, nameProblem } from "../sdk/schema";
import type { ObjectInputs } from "./state";

/**
 * Generated names stay within 63 characters, like Kubernetes' generateName: a Service's name is also the
 * value of the `compute.example.dev/service` label on its revisions, and label values stop at 63.
 */
const MAX_GENERATED_LENGTH = 63;
const SUFFIX_LENGTH = 6; // "-" and 5 hex
/** How many candidate names of one resource are tried, each taken by another object, before giving up. */
export const NAME_CANDIDATES = 16;

/** The DNS-1123 part of a generated name: "My_API" gives "my-api". */
export function nameBase(logicalName: string): string {
  const base = logicalName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, MAX_GENERATED_LENGTH - SUFFIX_LENGTH)
    .replace(/^-+|-+$/g, "");
  return base || "object";
}

/**
 * Candidate `attempt` (0, 1, …) of a resource's generated name: the logical name made DNS-1123, plus 5 hex of
 * sha256(seed, attempt). The seed is the resource's URN, so the same resource gets the same candidates in
 * every run (preview and up agree) and two stacks, projects or parents get different ones: "My_API" becomes
 * "my-api-3f9c1".
 */
export function generatedName(logicalName: string, seed: string, attempt = 0): string {
  const suffix = createHash("sha256").update(`${seed}\n${attempt}`).digest("hex").slice(0, 5);
  return `${nameBase(logicalName)}-${suffix}`;
}

/**
 * Pulumi's autonaming options (the `pulumi:autonaming` project or stack config), as the engine sends them to a
 * resource plugin with Check: a name to propose or to enforce (a pattern, or `verbatim`: the logical name), or
 * none at all (`disabled`).
 */
export interface Autonaming {
  mode: "propose" | "enforce" | "disable";
  /** The engine's name (empty with `disable`). */
  proposedName: string;
}

/** How `chooseName` names an object the program does not name. */
export interface NamingContext {
  /** What makes the resource's generated names its own: its URN. Default: the logical name. */
  seed?: string;
  /** The engine's autonaming options (native plugin only): they replace the generated name. */
  autonaming?: Autonaming;
  /**
   * Whether an object already holds `name` on the server. Without it (no API address: an offline preview)
   * the first candidate is the name.
   */
  taken?: (name: string) => Promise<boolean>;
}

/** The checked name, and why there is none when the object cannot be named (a message starting with the path). */
export type NameChoice = Pick<ObjectInputs, "metadata" | "autoNamed"> & { failure?: string };

/**
 * The object's name: the program's; else the one chosen earlier (kept in state, `olds`); else Pulumi's
 * autonaming proposal, when its config sets one; else the first candidate of `generatedName` that no object
 * holds on the server. Without olds (a create, or the replacement of an existing resource, whose old object
 * still holds its name both at preview and at up) the same candidates are asked in the same order, so the name
 * a preview shows is the name `up` creates.
 */
export async function chooseName(
  olds: Partial<ObjectInputs>,
  news: ObjectInputs,
  context: NamingContext = {},
): Promise<NameChoice> {
  const metadata = news.metadata ?? {};
  // Unknown during preview (computed from another resource's output): leave it for the engine to resolve.
  if (isUnknown(metadata) || metadata.name !== undefined) return { metadata, autoNamed: false };
  const keep = olds.autoNamed && olds.metadata?.name !== undefined && olds.logicalName === news.logicalName;
  if (keep) return { metadata: { ...metadata, name: olds.metadata?.name as string }, autoNamed: true };
  const logicalName = news.logicalName ?? "";
  const { autonaming } = context;
  if (autonaming?.mode === "disable") {
    return {
      metadata,
      autoNamed: false,
      failure:
        "metadata.name: is required: the `pulumi:autonaming` config disables generated names (mode " +
        '"disabled"); set metadata.name, or remove that setting',
    };
  }
  if (autonaming !== undefined) {
    const name = autonaming.proposedName;
    const problem = proposalProblem(name);
    if (problem === undefined) return { metadata: { ...metadata, name }, autoNamed: true };
    return {
      metadata,
      autoNamed: false,
      failure:
        `metadata.name: the name "${name}" that the \`pulumi:autonaming\` config gives ${problem}; change its ` +
        "pattern (or mode), or set metadata.name",
    };
  }
  return {
    metadata: { ...metadata, name: await firstFree(logicalName, context.seed ?? logicalName, context.taken) },
    autoNamed: true,
  };
}

/** Why a name from Pulumi's autonaming config cannot be used: the API's rule, and the generated names' 63. */
function proposalProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  const problem = nameProblem(name);
  if (problem !== undefined) return problem;
  if (name.length > MAX_GENERATED_LENGTH) {
    return `must be no more than ${MAX_GENERATED_LENGTH} characters (a Service's name is also a label value)`;
  }
  return undefined;
}

async function firstFree(logicalName: string, seed: string, taken: NamingContext["taken"]): Promise<string> {
  if (taken === undefined) return generatedName(logicalName, seed);
  for (let attempt = 0; attempt < NAME_CANDIDATES; attempt++) {
    const name = generatedName(logicalName, seed, attempt);
    let held: boolean;
    try {
      held = await taken(name);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(
        `could not look up whether the generated name "${name}" is free on the API: ${message}`,
      );
    }
    if (!held) return name;
  }
  throw new Error(
    `every generated name of "${logicalName}" that was tried (${NAME_CANDIDATES}) is held by another object on ` +
      "the server: set metadata.name",
  );
}
