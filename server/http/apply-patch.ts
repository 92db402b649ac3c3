// `yaml` (eemeli/yaml): YAML 1.2 with a JSON-compatible core schema, so a YAML body means what the same
// document means as JSON ("yes" stays a string, 2024-09-01 stays a string); it reports duplicate keys and
// bounds alias expansion (billion laughs) by itself.
import { parseAllDocuments } from "yaml";
import { apiError, badRequest } from "../../sdk/errors/server-errors";
import { isRecord } from "../records";
import {
  depthOf,
  jsonBodyParser,
  MAX_BODY_DEPTH,
  prototypeKeyPath,
  prototypeKeyRefused,
  tooDeep,
} from "./content-types";
import { shared } from "./shared";
import { decodeUtf8 } from "./strict-json";

/** Server-side apply's media type; the body is YAML or JSON (kubectl sends JSON). */
export const APPLY_PATCH_TYPE = "application/apply-patch+yaml";

/**
 * The body parser of apply patches. A body that is a JSON object goes through the same parser as JSON
 * bodies (prototype keys refused, duplicate keys and lossy numbers handled per fieldValidation by the
 * strict-json plugin); any other body is read as one YAML document. As for JSON: UTF-8 only, 1 MiB,
 * nesting bounded, `__proto__` and `constructor.prototype` refused, no number JSON cannot carry.
 */
export const applyPatchBodies = shared(async (fastify) => {
  const parseJson = jsonBodyParser(fastify);
  fastify.addContentTypeParser(APPLY_PATCH_TYPE, { parseAs: "buffer" }, (request, body, done) => {
    try {
      const text = decodeUtf8(body as Buffer);
      if (/^\s*\{/.test(text)) parseJson(request, text, done);
      else done(null, parseYaml(text));
    } catch (error) {
      done(error instanceof RangeError ? tooDeep() : (error as Error), undefined);
    }
  });
});

/** One YAML document as a JSON value, or a 400 saying where it is malformed. */
export function parseYaml(text: string): unknown {
  const documents = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true, version: "1.2" });
  if (!Array.isArray(documents)) throw badRequest("error decoding YAML: the body is not a YAML stream");
  if (documents.length !== 1) {
    throw badRequest(
      `error decoding YAML: an apply patch is one document, the body has ${documents.length}; send each object in its own request`,
    );
  }
  const [document] = documents;
  // yaml reports the stack overflow of a document nested too deep for it to compose as this code.
  if (document?.errors.some((error) => error.code === "RESOURCE_EXHAUSTION")) throw tooDeep();
  const problem = document?.errors[0];
  if (document === undefined || problem !== undefined) {
    const where = problem?.message.split("\n")[0]?.replace(/:$/, "");
    throw badRequest(`error decoding YAML: ${where ?? "no document"}`);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw badRequest(`error decoding YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (depthOf(value) > MAX_BODY_DEPTH) throw tooDeep();
  const prototypeKey = prototypeKeyPath(value);
  if (prototypeKey !== undefined) throw prototypeKeyRefused(prototypeKey);
  checkFinite(value, "");
  return value;
}

/** Values JSON cannot carry (`.inf`, `.nan`, `1e400`). */
function checkFinite(value: unknown, path: string): void {
  if (typeof value === "number" && !Number.isFinite(value)) {
    const field = path || "<body>";
    throw apiError(
      "Invalid",
      `${field}: ${String(value)} is not a finite number; JSON cannot carry it, so it cannot be stored`,
      { causes: [{ reason: "FieldValueInvalid", field, message: `${field}: not a finite number` }] },
    );
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) checkFinite(item, `${path}[${index}]`);
    return;
  }
  if (!isRecord(value)) return;
  for (const key of Object.keys(value)) checkFinite(value[key], path === "" ? key : `${path}.${key}`);
}
