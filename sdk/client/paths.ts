import { KINDS, type KindName } from "../schema";

/** `/apis/<group>/<version>/<plural>`, or the named object's path under it. */
export function resourcePath(kind: KindName, name?: string): string {
  const { group, version, plural } = KINDS[kind];
  const collection = `/apis/${group}/${version}/${plural}`;
  if (name === undefined) return collection;
  if (name === "") throw new TypeError(`${kind} name is empty: pass the object's metadata.name`);
  return `${collection}/${encodeURIComponent(name)}`;
}

/** The status subresource of the named object: a write there changes only `status`. */
export function statusPath(kind: KindName, name: string): string {
  return `${resourcePath(kind, name)}/status`;
}

/** The path with the defined parameters as a query string, in the order given. */
export function withQuery(path: string, parameters: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(parameters)) {
    if (value !== undefined) query.append(key, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
