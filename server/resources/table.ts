import type { ApiObject } from "../../sdk/client/types";
import type { KindName } from "../../sdk/schema";
import { COLUMNS, columnDefinitions, type TableColumnDefinition } from "../../sdk/schema/printer-columns";
import { redactObject } from "./redaction";

/**
 * Server-side printing (`meta.k8s.io` `Table`), what `kubectl get` asks for in its Accept header:
 * `application/json;as=Table;v=v1;g=meta.k8s.io` (then the v1beta1 form, then plain JSON). Each kind has
 * its own columns; the rows carry the object as `PartialObjectMetadata` (`includeObject=Metadata`, the
 * default), whole (`Object`, secrets redacted like any response) or not at all (`None`). Which Table a
 * request asks for is the HTTP layer's business (`http/table-negotiation.ts`).
 */

export type TableVersion = "v1" | "v1beta1";
export type { TableColumnDefinition };
export type IncludeObject = "None" | "Metadata" | "Object";

export interface TableOptions {
  version: TableVersion;
  includeObject: IncludeObject;
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export interface Table {
  kind: "Table";
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** A Table of `objects` (a list, one object, or one watch event's object). */
export function tableOf(
  kind: KindName,
  objects: readonly ApiObject[],
  options: TableOptions,
  metadata: Table["metadata"] = {},
  now = Date.now(),
): Table {
  return {
    kind: "Table",
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata,
    columnDefinitions: columnDefinitions(kind),
    rows: objects.map((object) => rowOf(kind, object, options, now)),
  };
}

function rowOf(kind: KindName, object: ApiObject, options: TableOptions, now: number): TableRow {
  const cells = COLUMNS[kind].map((entry) => entry.cell(object, now));
  switch (options.includeObject) {
    case "None":
      return { cells };
    case "Object":
      return { cells, object: redactObject(object) };
    case "Metadata":
      return {
        cells,
        object: {
          kind: "PartialObjectMetadata",
          apiVersion: `meta.k8s.io/${options.version}`,
          metadata: object.metadata,
        },
      };
  }
}
