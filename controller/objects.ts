// The objects the controller reads and writes, of any of its kinds: specs and status as plain records (the
// controller reads them through `applyDefaults` and the schema's types where it needs their fields).
import type { ObjectMeta } from "../sdk/client";
import type { KindName } from "../sdk/schema";

export type { ObjectMeta, OwnerReference } from "../sdk/client";

export interface KubeObject {
  apiVersion: string;
  kind: KindName;
  metadata: ObjectMeta;
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}
