import type { ApiObject } from "../../sdk/client/types";

/**
 * The objects of one kind by name, kept in name order as they are written (binary search on insert and
 * delete), so that lists and pages need neither a sort nor a scan of what comes before their start.
 */
export class SortedBucket {
  private readonly byName = new Map<string, ApiObject>();
  private readonly names: string[] = [];

  get size(): number {
    return this.names.length;
  }

  get(name: string): ApiObject | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  set(name: string, object: ApiObject): void {
    if (!this.byName.has(name)) this.names.splice(this.indexAfter(name, true), 0, name);
    this.byName.set(name, object);
  }

  delete(name: string): void {
    if (!this.byName.delete(name)) return;
    this.names.splice(this.indexAfter(name, true), 1);
  }

  /** In name order, starting after `after` (exclusive) when given. */
  *values(after?: string): IterableIterator<ApiObject> {
    for (let i = after === undefined ? 0 : this.indexAfter(after, false); i < this.names.length; i++) {
      yield this.byName.get(this.names[i] as string) as ApiObject;
    }
  }

  /** How many objects come after `after` (all of them without it). */
  countAfter(after?: string): number {
    return this.names.length - (after === undefined ? 0 : this.indexAfter(after, false));
  }

  /** The first index whose name is >= `name` (`inclusive`) or > `name`. */
  private indexAfter(name: string, inclusive: boolean): number {
    let low = 0;
    let high = this.names.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const probe = this.names[middle] as string;
      if (probe < name || (!inclusive && probe === name)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
