import type { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { KIND_NAMES, type KindName } from "../sdk/schema";
import { isRecord } from "../sdk/shared/records";
import { policyMetadata } from "./metadata";
import { describeResource, isKnownName, kindOfType, objectName, plainProperties } from "./resources";

/** A resource of ours in the stack, with its properties read as plain values. */
interface StackObject {
  kind: KindName;
  name: string;
  urn: string;
  props: Record<string, unknown>;
}

function stackObjects(resources: readonly PolicyResource[]): StackObject[] {
  return resources.flatMap(({ type, name, urn, props }) => {
    const kind = kindOfType(type);
    return kind === undefined ? [] : [{ kind, name, urn, props: plainProperties(props) }];
  });
}

/** The revision a Service pins, when it pins one and its name is known. */
function pinnedRevision(service: StackObject): string | undefined {
  const { spec } = service.props;
  const liveRevision = isRecord(spec) ? spec.liveRevision : undefined;
  return isKnownName(liveRevision) ? liveRevision : undefined;
}

export const liveRevisionManaged: StackValidationPolicy = {
  name: "live-revision-managed",
  description:
    "A Service that pins spec.liveRevision names a ServiceRevision managed by the same stack, so the pinned revision is known to exist.",
  enforcementLevel: "advisory",
  ...policyMetadata({
    name: "live-revision-managed",
    area: "stack",
    kinds: ["Service", "ServiceRevision"],
    severity: "low",
    fix: "Pin a ServiceRevision the stack manages, add that ServiceRevision to the stack, or clear spec.liveRevision to follow the latest minted revision.",
  }),
  validateStack: ({ resources }, reportViolation) => {
    const objects = stackObjects(resources);
    const revisionNames = objects
      .filter(({ kind }) => kind === "ServiceRevision")
      .map(({ props }) => objectName(props));
    // A revision whose name is not known yet may turn out to be the pinned one.
    if (revisionNames.includes(undefined)) return;
    const managed = revisionNames.map((name) => JSON.stringify(name)).join(", ") || "none";
    for (const service of objects.filter(({ kind }) => kind === "Service")) {
      const pinned = pinnedRevision(service);
      if (pinned === undefined || revisionNames.includes(pinned)) continue;
      reportViolation(
        `${describeResource(service.kind, service.name)}: spec.liveRevision: ${JSON.stringify(pinned)} is not among the ServiceRevisions of this stack (${managed}), so nothing here ensures it exists and is retained under revisionHistoryLimit; pin a revision the stack manages, add that ServiceRevision to the stack, or clear liveRevision to follow the latest minted revision`,
        service.urn,
      );
    }
  },
};

export const uniqueObjectNames: StackValidationPolicy = {
  name: "unique-object-names",
  description:
    "Resources of one kind in a stack have distinct metadata.name values: names are cluster-scoped, so two resources with one name would manage the same API object.",
  enforcementLevel: "mandatory",
  ...policyMetadata({
    name: "unique-object-names",
    area: "stack",
    kinds: KIND_NAMES,
    severity: "high",
    fix: "Give each resource of a kind a distinct metadata.name, or remove metadata.name to let Pulumi generate one.",
  }),
  // Every resource that shares a name is reported, naming the others: the engine's resource order varies
  // between runs, so "the later one" would move from run to run.
  validateStack: ({ resources }, reportViolation) => {
    const byName = new Map<string, StackObject[]>();
    for (const object of stackObjects(resources)) {
      const name = objectName(object.props);
      if (name === undefined) continue;
      const key = `${object.kind}/${name}`;
      byName.set(key, [...(byName.get(key) ?? []), object]);
    }
    for (const sharing of byName.values()) {
      if (sharing.length < 2) continue;
      const name = JSON.stringify(objectName(sharing[0]?.props ?? {}));
      for (const object of sharing) {
        const others = sharing
          .filter((other) => other !== object)
          .map((other) => describeResource(other.kind, other.name))
          .sort()
          .join(", ");
        reportViolation(
          `${describeResource(object.kind, object.name)}: metadata.name: ${name} is also the name of ${others} in this stack, so they would manage the same API object; give each a distinct metadata.name, or remove it to let Pulumi generate one`,
          object.urn,
        );
      }
    }
  },
};

export const STACK_POLICIES: readonly StackValidationPolicy[] = [liveRevisionManaged, uniqueObjectNames];
