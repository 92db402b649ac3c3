import type * as pulumi from "@pulumi/pulumi";
import type { KindName } from "../schema";

type Provider = Required<pulumi.dynamic.ResourceProvider>;

/**
 * The provider object handed to Pulumi. Pulumi serializes it with its closure into state; this shim captures
 * only the kind and loads the implementation by package name when the engine calls it, so nothing local (no
 * zod schema, no credentials) is serialized and the provider always runs the installed package's code.
 */
export function providerShim(kind: KindName): pulumi.dynamic.ResourceProvider {
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
