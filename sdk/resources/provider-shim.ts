import type * as pulumi from "@pulumi/pulumi";
import type { KindName } from "../schema";

type Provider = Required<pulumi.dynamic.ResourceProvider>;

const shims = new Map<KindName, pulumi.dynamic.ResourceProvider>();

/**
 * The provider object handed to Pulumi for every resource of `kind`: one instance per kind, because
 * @pulumi/pulumi caches the serialized provider per object, so a shared shim is serialized once per kind
 * and program run instead of once per resource.
 */
export function providerShim(kind: KindName): pulumi.dynamic.ResourceProvider {
  let shim = shims.get(kind);
  if (shim === undefined) {
    shim = newShim(kind);
    shims.set(kind, shim);
  }
  return shim;
}

/**
 * Pulumi serializes the provider object with its closure into state; this shim captures only the kind and
 * loads the implementation by package name when the engine calls it, so nothing local (no zod schema, no
 * credentials) is serialized and the provider always runs the installed package's code.
 */
function newShim(kind: KindName): pulumi.dynamic.ResourceProvider {
  // Resolved at call time, in the provider process, by package name.
  const load = (): Provider => require("@exampledev/pulumi/provider").resourceProvider(kind);
  return {
    configure: (request) => load().configure(request),
    check: (olds, news) => load().check(olds, news),
    diff: (id, olds, news) => load().diff(id, olds, news),
    create: (inputs) => load().create(inputs),
    read: (id, props) => load().read(id, props),
    update: (id, olds, news) => load().update(id, olds, news),
    delete: (id, props) => load().delete(id, props),
  };
}
