// Reading objects a stack does not manage: the dynamic resources' `get` (ObjectProvider.read of a state that
// holds only the provider) and the lookup functions (sdk/resources/lookups.ts), which run in the program's
// process with the provider's settings as the stack configures them (settings.ts: one resolution).
import { type Client, createClient } from "../sdk/client";
import type { ObjectMeta } from "../sdk/client/types";
import type { KindName } from "../sdk/schema";
import { explainingClient } from "./access";
import { type AnyObject, KIND_BEHAVIOUR } from "./kinds";
import { type ConfigSource, resolveAccess } from "./settings";
import { find } from "./write/target";

/** An object as a lookup returns it: metadata (without `managedFields`), spec and status, as the API answered. */
export interface LookedUp {
  metadata: Omit<ObjectMeta, "managedFields">;
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
}

/**
 * Whether a read is a lookup (a resource's static `get`): the engine's ReadResource sends the properties the
 * program passed, which are the provider's source and nothing else. A managed resource's state always has
 * metadata; a lookup has no uid nor create token to match, so the object under the name is the one read.
 */
export function isLookup(state: { metadata?: unknown }): boolean {
  return state.metadata === undefined;
}

export function lookedUp(object: AnyObject): LookedUp {
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return {
    metadata,
    spec: object.spec as Record<string, unknown>,
    status: (object.status ?? {}) as Record<string, unknown>,
  };
}

/** The failure of a lookup of a missing object: the kind, the name and the API it was asked. */
export function missingObject(kind: KindName, name: string, baseUrl: string): Error {
  return new Error(`no ${kind} "${name}" at ${baseUrl}`);
}

/** Sorts oldest first: by creation time, then by name (creation times have a resolution of a second). */
function oldestFirst(a: AnyObject, b: AnyObject): number {
  const created = (object: AnyObject) => object.metadata.creationTimestamp ?? "";
  return created(a).localeCompare(created(b)) || a.metadata.name.localeCompare(b.metadata.name);
}

export interface ListQuery {
  labelSelector?: string;
  /** ServiceRevisions only: those the Service of this name owns (its controller's `ownerReferences`). */
  service?: string;
}

/** Lookups over one client: the program's own (`fromConfig`), or the native plugin's. */
export class Lookups {
  constructor(
    private readonly client: Client,
    /** The API's address, for messages. */
    readonly baseUrl: string,
    private readonly ownsClient = false,
  ) {}

  /** Over one resolution of the settings (stack config, then EXAMPLEDEV_* variables, as the provider), with a client of its own. */
  static fromConfig(config: ConfigSource): Lookups {
    const { settings, origins } = resolveAccess(config);
    return new Lookups(
      explainingClient(createClient(settings), () => origins),
      settings.baseUrl,
      true,
    );
  }

  async get(kind: KindName, name: string): Promise<LookedUp> {
    const object = await find(KIND_BEHAVIOUR[kind].accessor(this.client), name);
    if (object === undefined) throw missingObject(kind, name, this.baseUrl);
    return lookedUp(object);
  }

  /** Every page of the list, oldest first. */
  async list(kind: KindName, query: ListQuery = {}): Promise<LookedUp[]> {
    const { labelSelector, service } = query;
    const items = await KIND_BEHAVIOUR[kind]
      .accessor(this.client)
      .listAll(labelSelector ? { labelSelector } : {});
    const owned =
      service === undefined
        ? items
        : items.filter((item) =>
            (item.metadata.ownerReferences ?? []).some(
              (owner) => owner.kind === "Service" && owner.name === service,
            ),
          );
    return [...owned].sort(oldestFirst).map(lookedUp);
  }

  /** Closes the client if it is the lookups' own. */
  close(): Promise<void> {
    return this.ownsClient ? this.client.close() : Promise.resolve();
  }
}
