import { isRecord } from "../../records";

/**
 * Sets of field paths, as server-side apply tracks ownership. A path is a list of elements in Kubernetes'
 * FieldsV1 spelling: `f:<field or map key>`, `k:<JSON object of the key fields>` for an item of a
 * map-list, `v:<JSON value>` for an item of a set, `i:<index>`. A set holds the paths of the fields a
 * manager owns; a container (an object, a map or a list item) is in the set itself only when it is
 * owned as a whole, which FieldsV1 writes as `".": {}` beside its children.
 *
 * Paths are kept as strings joined by a separator that JSON text cannot contain unescaped, so the set
 * operations are those of `Set<string>`.
 */

export type PathElement = string;
export type Path = readonly PathElement[];

const SEPARATOR = "\u0000";

export function pathKey(path: Path): string {
  return path.join(SEPARATOR);
}

export function pathOfKey(key: string): Path {
  return key === "" ? [] : key.split(SEPARATOR);
}

export const fieldElement = (name: string): PathElement => `f:${name}`;

/** `k:{"name":"A"}`: the key fields in name order, as Kubernetes serializes them. */
export function keyElement(item: Record<string, unknown>, keys: readonly string[]): PathElement {
  const fields = [...keys].sort().map((key) => `${JSON.stringify(key)}:${JSON.stringify(item[key])}`);
  return `k:{${fields.join(",")}}`;
}

export class FieldSet {
  private readonly keys: Set<string>;

  constructor(keys: Iterable<string> = []) {
    this.keys = new Set(keys);
  }

  static of(paths: Iterable<Path>): FieldSet {
    return new FieldSet(Array.from(paths, pathKey));
  }

  get size(): number {
    return this.keys.size;
  }

  isEmpty(): boolean {
    return this.keys.size === 0;
  }

  has(path: Path): boolean {
    return this.keys.has(pathKey(path));
  }

  insert(path: Path): void {
    this.keys.add(pathKey(path));
  }

  paths(): Path[] {
    return [...this.keys].sort().map(pathOfKey);
  }

  union(other: FieldSet): FieldSet {
    return new FieldSet([...this.keys, ...other.keys]);
  }

  difference(other: FieldSet): FieldSet {
    return new FieldSet([...this.keys].filter((key) => !other.keys.has(key)));
  }

  intersection(other: FieldSet): FieldSet {
    return new FieldSet([...this.keys].filter((key) => other.keys.has(key)));
  }

  equals(other: FieldSet): boolean {
    return this.size === other.size && [...this.keys].every((key) => other.keys.has(key));
  }

  /**
   * The set plus every field (`f:`) that leads to one of its paths: owning `spec.runtime.timeout` means
   * owning that `spec.runtime` exists (structured-merge-diff's EnsureNamedFieldsAreMembers), so pruning
   * a manager's old fields never removes an object another manager still has fields in.
   */
  withNamedParents(): FieldSet {
    const keys = new Set(this.keys);
    for (const key of this.keys) {
      const path = pathOfKey(key);
      for (let end = path.length - 1; end > 0; end--) {
        if ((path[end - 1] as string).startsWith("f:")) keys.add(pathKey(path.slice(0, end)));
      }
    }
    return new FieldSet(keys);
  }

  /** FieldsV1: a trie of path elements; `".": {}` marks a container that is itself in the set. */
  toFieldsV1(): Record<string, unknown> {
    const root: Record<string, unknown> = {};
    const members: Record<string, unknown>[] = [];
    for (const path of this.paths()) {
      let node = root;
      for (const element of path) {
        if (!isRecord(node[element])) node[element] = {};
        node = node[element] as Record<string, unknown>;
      }
      members.push(node);
    }
    for (const node of members) if (Object.keys(node).length > 0) node["."] = {};
    return sortTrie(root);
  }

  /** Reads FieldsV1; undefined when it is not a trie of path elements. */
  static fromFieldsV1(trie: unknown): FieldSet | undefined {
    const keys: string[] = [];
    const visit = (node: unknown, path: Path): boolean => {
      if (!isRecord(node)) return false;
      const children = Object.entries(node);
      if (children.length === 0) {
        if (path.length > 0) keys.push(pathKey(path));
        return true;
      }
      for (const [element, child] of children) {
        if (element === ".") {
          if (path.length === 0 || !isRecord(child) || Object.keys(child).length > 0) return false;
          keys.push(pathKey(path));
        } else if (!/^[fkvi]:/.test(element) || !visit(child, [...path, element])) return false;
      }
      return true;
    };
    return visit(trie, []) ? new FieldSet(keys) : undefined;
  }
}

/** `.` first, then the elements in order, as Kubernetes writes FieldsV1. */
function sortTrie(node: Record<string, unknown>): Record<string, unknown> {
  const sorted: Record<string, unknown> = {};
  if (Object.hasOwn(node, ".")) sorted["."] = {};
  for (const key of Object.keys(node).sort()) {
    if (key !== ".") sorted[key] = sortTrie(node[key] as Record<string, unknown>);
  }
  return sorted;
}

/**
 * A path as Kubernetes prints it in conflicts: `.spec.template.spec.env[name="A"].value`, a set item as
 * `[=value]`, an index as `[3]`.
 */
export function formatPath(path: Path): string {
  return path
    .map((element) => {
      const body = element.slice(2);
      if (element.startsWith("f:")) return `.${body}`;
      if (element.startsWith("i:")) return `[${body}]`;
      if (element.startsWith("v:")) return `[=${body}]`;
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(key)
        .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
        .join(",")}]`;
    })
    .join("");
}
