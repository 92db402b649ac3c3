// The URNs of a stack's objects, from `pulumi stack export`: what lets the audit of live objects, which the
// API names by kind and metadata.name, apply Pulumi's policy exceptions, which name resources by URN.
import { readFileSync } from "node:fs";
import type { KindName } from "../../sdk/schema";
import { isRecord } from "../../sdk/shared/records";
import { kindOfType, objectName } from "../resources";

/** `Kind/metadata.name` of a live object: the key the state's URNs are looked up by. */
export const objectKey = (kind: KindName, name: string) => `${kind}/${name}`;

/** Each exported resource of ours, by `Kind/metadata.name` (from its outputs) -> its URN. */
export function stackUrns(exportText: string): Map<string, string> {
  const exported: unknown = JSON.parse(exportText);
  const deployment = isRecord(exported) && isRecord(exported.deployment) ? exported.deployment : {};
  const resources = Array.isArray(deployment.resources) ? deployment.resources : [];
  const urns = new Map<string, string>();
  for (const resource of resources) {
    if (!isRecord(resource) || typeof resource.type !== "string" || typeof resource.urn !== "string")
      continue;
    const kind = kindOfType(resource.type);
    const name = isRecord(resource.outputs) ? objectName(resource.outputs) : undefined;
    if (kind !== undefined && name !== undefined) urns.set(objectKey(kind, name), resource.urn);
  }
  return urns;
}

export function readStackUrns(files: readonly string[]): Map<string, string> {
  return new Map(files.flatMap((file) => [...stackUrns(readFileSync(file, "utf8"))]));
}
