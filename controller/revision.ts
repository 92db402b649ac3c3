// The ServiceRevision a Service's current template and bundle call for, and which revisions a Service owns.

import type { ApiObject, OwnerReference } from "../sdk/client/types";
import {
  applyDefaults,
  type BundleRef,
  KINDS,
  type ServiceRevisionSpec,
  type ServiceTemplateSpec,
} from "../sdk/schema";
import { templateIdentity as sharedTemplateIdentity } from "../sdk/schema/minting";
import { revisionName } from "./naming";

/** Labels every revision with its Service, for label selectors (`?labelSelector=`). */
export const SERVICE_LABEL = "compute.example.dev/service";

/**
 * The digest-pinned bundle a revision runs. Registry credentials travel with it, as stored (they are
 * redacted in every response): the revision pulls its pinned artifact from the same private registry.
 */
export type PinnedBundle = Pick<BundleRef, "repo" | "credentials" | "credentialsRef"> & { digest: string };

export function pinBundle(source: BundleRef, digest: string): PinnedBundle {
  const { repo, credentials, credentialsRef } = source;
  return { repo, digest, ...(credentials && { credentials }), ...(credentialsRef && { credentialsRef }) };
}

/** The template as it names revisions: empty template metadata counts as none (the one definition). */
function templateIdentity(template: ServiceTemplateSpec): ServiceTemplateSpec {
  return sharedTemplateIdentity(template) as ServiceTemplateSpec;
}

/** The owner reference of an object `service` controls (its revisions, its preview Services). */
export function controllerReference(service: ApiObject): OwnerReference {
  return {
    apiVersion: KINDS.Service.apiVersion,
    kind: "Service",
    name: service.metadata.name,
    uid: service.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * The revision for `template` (defaults applied) running `bundle`: its spec is the template's spec plus
 * the bundle; its metadata carries the template's labels and annotations, the Service label and a
 * controller reference to the Service.
 */
export function desiredRevision(
  service: ApiObject,
  template: ServiceTemplateSpec,
  bundle: PinnedBundle,
): ApiObject {
  const spec: ServiceRevisionSpec = applyDefaults("ServiceRevision", { ...template.spec, bundle });
  const annotations = template.metadata?.annotations;
  return {
    apiVersion: KINDS.ServiceRevision.apiVersion,
    kind: "ServiceRevision",
    metadata: {
      name: revisionName(service.metadata.name, { template: templateIdentity(template), bundle }),
      labels: { ...template.metadata?.labels, [SERVICE_LABEL]: service.metadata.name },
      ...(annotations && Object.keys(annotations).length > 0 && { annotations }),
      ownerReferences: [controllerReference(service)],
    },
    spec: spec as unknown as Record<string, unknown>,
  };
}

/** The controller owner of an object, when it is a Service. */
export function controllingService(object: ApiObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((owner) => owner.controller && owner.kind === "Service");
}

/** Whether `service` (this incarnation of the name: same uid) controls `object`. */
export function isControlledBy(object: ApiObject, service: ApiObject): boolean {
  return controllingService(object)?.uid === service.metadata.uid;
}
