// What a stack's state holds against what the server holds: the check, after any run that met faults, that
// nothing was lost (every declared object is on the server), nothing left out (no orphan) and nothing created
// twice (no duplicate). Used by the data-safety suites and the HA faults (test/kube/ha-faults.test.ts).
import type { Stack } from "@pulumi/pulumi/automation";
import type { Client } from "../../sdk/client";

export interface Census {
  /** Objects in the stack's state. */
  declared: number;
  /** Objects on the server, but for the revisions the controller minted (owned by their Service). */
  onServer: number;
  /** On the server and not in state. */
  orphans: string[];
  /** Logical names with more than one object on the server. */
  duplicates: string[];
}

/** What the stack's state holds against what the server holds. */
export async function census(api: Client, stack: Stack): Promise<Census> {
  const { deployment } = await stack.exportStack();
  const resources = (deployment.resources ?? []) as { type: string; id?: string; urn: string }[];
  const inState = resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/exampledev:"));
  const stateNames = new Set(inState.map((r) => `${r.type.split(":").pop()}/${r.id}`));
  const lists = await Promise.all([
    api.proxies.listAll(),
    api.services.listAll(),
    api.serviceRevisions.listAll(),
  ]);
  const objects = lists
    .flat()
    .filter((object) => (object.metadata.ownerReferences ?? []).length === 0)
    .map((object) => `${object.kind}/${object.metadata.name}`);
  // An auto-named object is `<logical name>-<5 hex>`: two of one logical name are a duplicate.
  const logical = objects.map((name) => name.replace(/-[0-9a-f]{5}$/, ""));
  return {
    declared: inState.length,
    onServer: objects.length,
    orphans: objects.filter((name) => !stateNames.has(name)),
    duplicates: [...new Set(logical.filter((name, i) => logical.indexOf(name) !== i))],
  };
}
