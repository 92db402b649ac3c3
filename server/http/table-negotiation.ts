import type { IncludeObject, TableOptions, TableVersion } from "../resources/table";

/**
 * The Table form the Accept header asks for, if any: its media ranges in order, the first this server can
 * answer wins (a Table of meta.k8s.io v1 or v1beta1, or plain JSON). A header asking for nothing this
 * server serves gets plain JSON, as before Tables existed.
 */
export function negotiateTable(accept: string | undefined): TableVersion | undefined {
  if (accept === undefined) return undefined;
  for (const range of accept.split(",")) {
    const [type = "", ...rawParameters] = range.split(";").map((part) => part.trim());
    const mediaType = type.toLowerCase();
    if (mediaType !== "application/json" && mediaType !== "application/*" && mediaType !== "*/*") continue;
    const parameters = new Map(
      rawParameters.map((parameter) => {
        const [key = "", value = ""] = parameter.split("=").map((part) => part.trim());
        return [key.toLowerCase(), value] as const;
      }),
    );
    const as = parameters.get("as");
    if (as === undefined) return undefined;
    const version = parameters.get("v");
    if (
      as === "Table" &&
      parameters.get("g") === "meta.k8s.io" &&
      (version === "v1" || version === "v1beta1")
    )
      return version;
  }
  return undefined;
}

/**
 * The media type of a Table answer, as the Kubernetes API server labels it (with the charset, so fastify
 * keeps the header as written instead of rewriting its parameters).
 */
export function tableContentType(version: TableVersion): string {
  return `application/json;as=Table;v=${version};g=meta.k8s.io;charset=utf-8`;
}

/** The Table a request asks for (its Accept header, with `includeObject`); undefined for plain JSON. */
export function tableOptions(
  accept: string | undefined,
  includeObject: IncludeObject,
): TableOptions | undefined {
  const version = negotiateTable(accept);
  return version === undefined ? undefined : { version, includeObject };
}
