import type { ApiObject } from "../sdk/client/types";
import type { KindCache } from "./cluster";
import type { InformerHandlers } from "./informer";
import { controllingService, isControlledBy } from "./revision";

/**
 * Which ServiceRevisions each Service controls, by the Service's uid, kept current from the revisions'
 * events, so a sync that prunes history looks only at its own Service's revisions instead of scanning
 * every cached revision: a sync stays O(own revisions) however many Services there are.
 */
export class OwnedRevisions {
  /** controller uid -> names of the revisions it controls */
  private readonly byOwner = new Map<string, Set<string>>();
  /** revision name -> its controller's uid */
  private readonly ownerOf = new Map<string, string>();

  /** What the revisions' informer tells the index. */
  readonly handlers: InformerHandlers<ApiObject> = {
    add: (revision) => this.put(revision),
    update: (previous, revision) => {
      this.drop(previous.metadata.name);
      this.put(revision);
    },
    delete: (revision) => this.drop(revision.metadata.name),
  };

  constructor(private readonly revisions: Pick<KindCache, "get">) {}

  /** The revisions `service` (this incarnation: its uid) controls, as cached now. */
  of(service: ApiObject): ApiObject[] {
    const names = this.byOwner.get(service.metadata.uid ?? "") ?? new Set<string>();
    return [...names]
      .map((name) => this.revisions.get(name))
      .filter(
        (revision): revision is ApiObject => revision !== undefined && isControlledBy(revision, service),
      );
  }

  private put(revision: ApiObject): void {
    const name = revision.metadata.name;
    const owner = controllingService(revision)?.uid;
    if (owner === undefined) return;
    this.ownerOf.set(name, owner);
    let names = this.byOwner.get(owner);
    if (names === undefined) {
      names = new Set();
      this.byOwner.set(owner, names);
    }
    names.add(name);
  }

  private drop(name: string): void {
    const owner = this.ownerOf.get(name);
    if (owner === undefined) return;
    this.ownerOf.delete(name);
    const names = this.byOwner.get(owner);
    names?.delete(name);
    if (names?.size === 0) this.byOwner.delete(owner);
  }
}
