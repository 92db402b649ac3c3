import { stringify } from "yaml";
import { generatedHeader } from "../scripts/lib/generated-header";
import { CONDITION_TYPES, KINDS, type KindName, READINESS_TYPES } from "../sdk/schema";
import { customResourceDefinition, type PrinterColumn } from "../sdk/schema/crd";
import { columnDefinitions } from "../sdk/schema/printer-columns";

/**
 * The CRD files a real Kubernetes API server is given (`kubectl apply -f deploy/crds/`), written by
 * `npm run generate` with the other files generated from the schema. Their printer columns are the local
 * server's Table columns (names, words, priorities from sdk/schema/printer-columns.ts); a CRD computes a cell
 * from a JSONPath where the local server runs code, so each column's path is written here.
 */

const ACCEPTED = `.status.conditions[?(@.type=="${CONDITION_TYPES.Accepted}")]`;
const READY = `.status.conditions[?(@.type=="${READINESS_TYPES.Ready}")]`;

type Cell = Pick<PrinterColumn, "type" | "jsonPath">;

/**
 * Where each column's cell is read. What a JSONPath cannot do: ServiceRevision's Service column lists every
 * Service owner (the local server shows the controller owner only; a revision has one owner), and Digest is
 * the whole digest (the local server shortens it to 12 hex digits).
 */
const CELLS: Readonly<Record<KindName, Readonly<Record<string, Cell>>>> = {
  Proxy: {
    Provider: { type: "string", jsonPath: ".spec.provider" },
    [READINESS_TYPES.Ready]: { type: "string", jsonPath: `${READY}.status` },
  },
  Service: {
    Latest: { type: "string", jsonPath: ".status.latestRevision" },
    Live: { type: "string", jsonPath: ".status.liveRevision" },
    [READINESS_TYPES.Ready]: { type: "string", jsonPath: `${READY}.status` },
    [CONDITION_TYPES.Accepted]: { type: "string", jsonPath: `${ACCEPTED}.status` },
    Reason: { type: "string", jsonPath: `${READY}.reason` },
  },
  ServiceRevision: {
    Service: { type: "string", jsonPath: '.metadata.ownerReferences[?(@.kind=="Service")].name' },
    Digest: { type: "string", jsonPath: ".spec.bundle.digest" },
  },
};

// Kubernetes prints the name first on its own; a date column prints as an age, like the local server's.
const AGE: Cell = { type: "date", jsonPath: ".metadata.creationTimestamp" };

export function printerColumns(kind: KindName): PrinterColumn[] {
  return columnDefinitions(kind)
    .filter((column) => column.name !== "Name")
    .map(({ name, description, priority }) => {
      const cell = name === "Age" ? AGE : CELLS[kind][name];
      if (cell === undefined)
        throw new TypeError(`deploy/crds.ts has no JSONPath for ${kind}'s column ${name}`);
      return { name, ...cell, description, priority };
    });
}

/** The file of each kind's CRD, from the repository root. */
export function crdFile(kind: KindName): string {
  const { plural, group } = KINDS[kind];
  return `deploy/crds/${plural}.${group}.yaml`;
}

/** What the CRD is generated from, for its header and `npm run generate`'s messages. */
export const CRD_SOURCE = "the zod schema (customResourceDefinition in sdk/schema/crd.ts) and deploy/crds.ts";

export function crdYaml(kind: KindName): string {
  return (
    `# ${generatedHeader(CRD_SOURCE)}\n` +
    stringify(customResourceDefinition(kind, printerColumns(kind)), {
      lineWidth: 0,
      aliasDuplicateObjects: false,
    })
  );
}
