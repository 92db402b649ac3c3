// The columns each kind prints (`kubectl get`): the local server's Table responses and the CRDs'
// additionalPrinterColumns are both made from this table, so the two servers print alike.
import { isRecord } from "../shared/records";
import type { KindName } from "./kinds";
import { CONDITION_TYPES, READINESS_TYPES } from "./status";

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** The fields of an object a column reads. */
export interface PrintedObject {
  metadata: {
    name?: string;
    creationTimestamp?: string;
    ownerReferences?: readonly { kind: string; name: string; controller?: boolean }[];
  };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const NONE = "<none>";

interface Column {
  definition: TableColumnDefinition;
  cell: (object: PrintedObject, now: number) => unknown;
}

const column = (
  name: string,
  description: string,
  cell: Column["cell"],
  extra: Partial<TableColumnDefinition> = {},
): Column => ({
  definition: { name, type: "string", format: "", description, priority: 0, ...extra },
  cell,
});

const NAME = column(
  "Name",
  "Name must be unique within the kind; a DNS-1123 subdomain.",
  (object) => object.metadata.name,
  { format: "name" },
);
const AGE = column(
  "Age",
  "How long ago the object was created (metadata.creationTimestamp).",
  (object, now) => age(object.metadata.creationTimestamp, now),
);

/** A Service status field naming a revision, in a column named after it: `liveRevision` is "Live". */
function revisionColumn(field: "latestRevision" | "liveRevision", description: string): Column {
  const word = field.slice(0, -"Revision".length);
  const name = word.charAt(0).toUpperCase() + word.slice(1);
  return column(name, `${description} (status.${field}).`, (object) => text(object.status?.[field]));
}

/** Whether the object is Ready (the status of its Ready condition; status-readiness.ts says when). */
const READY = column(
  READINESS_TYPES.Ready,
  "Whether the object is what its spec asks for (the status of the Ready condition).",
  (object) => condition(object, READINESS_TYPES.Ready)?.status ?? NONE,
);

export const COLUMNS: Readonly<Record<KindName, readonly Column[]>> = {
  Proxy: [
    NAME,
    column("Provider", "Where the proxy is deployed (spec.provider).", (object) =>
      text(object.spec.provider),
    ),
    READY,
    AGE,
  ],
  Service: [
    NAME,
    revisionColumn("latestRevision", "The revision minted for the current template and bundle"),
    revisionColumn("liveRevision", "The revision selected to serve"),
    READY,
    column(
      CONDITION_TYPES.Accepted,
      "Whether a revision is minted for the current generation (the status of the Accepted condition).",
      (object) => condition(object, CONDITION_TYPES.Accepted)?.status ?? NONE,
    ),
    AGE,
    column(
      "Reason",
      "Why the Ready condition has its status (its reason: the first concern that is not in place).",
      (object) => condition(object, READINESS_TYPES.Ready)?.reason ?? NONE,
      { priority: 1 },
    ),
  ],
  ServiceRevision: [
    NAME,
    column("Service", "The Service that owns the revision (its controller owner reference).", (object) => {
      const owners = object.metadata.ownerReferences ?? [];
      const owner =
        owners.find((ref) => ref.kind === "Service" && ref.controller) ??
        owners.find((ref) => ref.kind === "Service");
      return owner?.name ?? NONE;
    }),
    column("Digest", "The bundle's digest, shortened (spec.bundle.digest).", (object) =>
      shortDigest(isRecord(object.spec.bundle) ? object.spec.bundle.digest : undefined),
    ),
    AGE,
  ],
};

export function columnDefinitions(kind: KindName): TableColumnDefinition[] {
  return COLUMNS[kind].map((entry) => ({ ...entry.definition }));
}

function text(value: unknown): string {
  return typeof value === "string" && value !== "" ? value : NONE;
}

function condition(object: PrintedObject, type: string): { status?: unknown; reason?: unknown } | undefined {
  const conditions = object.status?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  const found = conditions.find((entry) => isRecord(entry) && entry.type === type);
  if (!isRecord(found)) return undefined;
  return {
    status: typeof found.status === "string" ? found.status : undefined,
    reason: typeof found.reason === "string" ? found.reason : undefined,
  };
}

/** `sha256:0123456789ab`: the algorithm and the first 12 hex digits, as container tools shorten digests. */
function shortDigest(digest: unknown): string {
  if (typeof digest !== "string" || digest === "") return NONE;
  const [algorithm, hex] = digest.split(":");
  return hex === undefined ? digest.slice(0, 19) : `${algorithm}:${hex.slice(0, 12)}`;
}

/** Kubernetes' `duration.HumanDuration` of the time since `timestamp`: 45s, 3m20s, 12m, 5h30m, 3d4h, 2y10d. */
export function age(timestamp: string | undefined, now = Date.now()): string {
  const then = Date.parse(timestamp ?? "");
  if (Number.isNaN(then)) return NONE;
  const seconds = Math.trunc((now - then) / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}
