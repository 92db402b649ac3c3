import { isRecord } from "../records";

/**
 * The Swagger 2.0 document as the protocol buffer kubectl asks `/openapi/v2` for
 * (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): gnostic's `openapi.v2.Document`
 * message, which client-go decodes for `kubectl explain --output=plaintext-openapiv2`, for the patch type
 * of a client-side apply and for older kubectl versions' validation. Only the parts of the schema this
 * server's documents use are encoded; the field numbers are those of gnostic's OpenAPIv2.proto. Values
 * of `Any` fields (defaults, enums, extensions) travel as YAML text, which JSON text is.
 */

export const PROTOBUF_V2_TYPE = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
/** What the answer says it is: the same type spelt as a valid media type ("@" is not a token character). */
export const PROTOBUF_V2_CONTENT_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

type Json = Record<string, unknown>;

/** A protocol buffer message being written: fields in the order they are added. */
class Writer {
  private readonly chunks: Buffer[] = [];

  private tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  private varint(value: number): void {
    const bytes: number[] = [];
    let rest = value;
    while (rest > 127) {
      bytes.push((rest % 128) + 128);
      rest = Math.floor(rest / 128);
    }
    bytes.push(rest);
    this.chunks.push(Buffer.from(bytes));
  }

  string(field: number, value: unknown): this {
    if (typeof value !== "string" || value === "") return this;
    return this.bytes(field, Buffer.from(value, "utf8"));
  }

  strings(field: number, values: unknown): this {
    for (const value of Array.isArray(values) ? values : [])
      this.bytes(field, Buffer.from(String(value), "utf8"));
    return this;
  }

  bool(field: number, value: unknown): this {
    if (value !== true) return this;
    this.tag(field, 0);
    this.varint(1);
    return this;
  }

  message(field: number, message: Writer | undefined): this {
    return message === undefined ? this : this.bytes(field, message.finish());
  }

  private bytes(field: number, bytes: Buffer): this {
    this.tag(field, 2);
    this.varint(bytes.length);
    this.chunks.push(bytes);
    return this;
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** `Any { yaml = 2 }`. */
function any(value: unknown): Writer {
  return new Writer().string(2, JSON.stringify(value));
}

/** Vendor extensions (`x-…` keys) as `NamedAny { name = 1; value = 2 }` under `field`. */
function extensions(writer: Writer, field: number, object: Json): Writer {
  for (const [key, value] of Object.entries(object)) {
    if (key.startsWith("x-")) writer.message(field, new Writer().string(1, key).message(2, any(value)));
  }
  return writer;
}

function named(name: string, value: Writer): Writer {
  return new Writer().string(1, name).message(2, value);
}

function entries(value: unknown): [string, Json][] {
  return isRecord(value)
    ? (Object.entries(value).filter(([, entry]) => isRecord(entry)) as [string, Json][])
    : [];
}

/** `Schema`: the JSON Schema subset of the documents. */
function schema(object: Json): Writer {
  const writer = new Writer()
    .string(1, object.$ref)
    .string(2, object.format)
    .string(3, object.title)
    .string(4, object.description);
  if (object.default !== undefined) writer.message(5, any(object.default));
  writer.strings(19, object.required);
  for (const value of Array.isArray(object.enum) ? object.enum : []) writer.message(20, any(value));
  if (typeof object.additionalProperties === "boolean") {
    writer.message(21, new Writer().bool(2, object.additionalProperties));
  } else if (isRecord(object.additionalProperties)) {
    writer.message(21, new Writer().message(1, schema(object.additionalProperties)));
  }
  if (typeof object.type === "string") writer.message(22, new Writer().strings(1, [object.type]));
  if (isRecord(object.items)) writer.message(23, new Writer().message(1, schema(object.items)));
  for (const part of Array.isArray(object.allOf) ? object.allOf.filter(isRecord) : []) {
    writer.message(24, schema(part));
  }
  if (isRecord(object.properties)) {
    const properties = new Writer();
    for (const [name, property] of entries(object.properties))
      properties.message(1, named(name, schema(property)));
    writer.message(25, properties);
  }
  return extensions(writer, 31, object);
}

/** `ParametersItem { Parameter parameter = 1 }`, a body, query or path parameter. */
function parameter(object: Json): Writer {
  let inner: Writer;
  if (object.in === "body") {
    const body = new Writer()
      .string(1, object.description)
      .string(2, object.name)
      .string(3, object.in)
      .bool(4, object.required);
    if (isRecord(object.schema)) body.message(5, schema(object.schema));
    inner = new Writer().message(1, body);
  } else {
    // QueryParameterSubSchema (3) and PathParameterSubSchema (4) share their first fields; type and
    // uniqueItems sit one number apart.
    const query = object.in === "query";
    const sub = new Writer()
      .bool(1, object.required)
      .string(2, object.in)
      .string(3, object.description)
      .string(4, object.name)
      .string(query ? 6 : 5, object.type)
      .bool(query ? 20 : 19, object.uniqueItems);
    inner = new Writer().message(2, new Writer().message(query ? 3 : 4, sub));
  }
  return new Writer().message(1, inner);
}

function operation(object: Json): Writer {
  const writer = new Writer()
    .strings(1, object.tags)
    .string(2, object.summary)
    .string(3, object.description)
    .string(5, object.operationId)
    .strings(6, object.produces)
    .strings(7, object.consumes);
  for (const item of Array.isArray(object.parameters) ? object.parameters.filter(isRecord) : []) {
    writer.message(8, parameter(item));
  }
  const responses = new Writer();
  for (const [code, response] of entries(object.responses)) {
    const value = new Writer().string(1, response.description);
    if (isRecord(response.schema)) value.message(2, new Writer().message(1, schema(response.schema)));
    responses.message(1, named(code, new Writer().message(1, value)));
  }
  writer.message(9, responses).strings(10, object.schemes);
  return extensions(writer, 13, object);
}

const METHODS: Readonly<Record<string, number>> = { get: 2, put: 3, post: 4, delete: 5, patch: 8 };

function pathItem(object: Json): Writer {
  const writer = new Writer();
  for (const [method, field] of Object.entries(METHODS)) {
    if (isRecord(object[method])) writer.message(field, operation(object[method] as Json));
  }
  for (const item of Array.isArray(object.parameters) ? object.parameters.filter(isRecord) : []) {
    writer.message(9, parameter(item));
  }
  return extensions(writer, 10, object);
}

/** `openapi.v2.Document` of a Swagger 2.0 document. */
export function encodeSwaggerDocument(document: Json): Buffer {
  const writer = new Writer().string(1, document.swagger);
  if (isRecord(document.info)) {
    writer.message(2, new Writer().string(1, document.info.title).string(2, document.info.version));
  }
  const paths = new Writer();
  for (const [path, item] of entries(document.paths)) paths.message(2, named(path, pathItem(item)));
  writer.message(8, paths);
  const definitions = new Writer();
  for (const [name, definition] of entries(document.definitions)) {
    definitions.message(1, named(name, schema(definition)));
  }
  writer.message(9, definitions);
  for (const requirement of Array.isArray(document.security) ? document.security.filter(isRecord) : []) {
    const entry = new Writer();
    for (const [name, scopes] of Object.entries(requirement)) {
      entry.message(1, named(name, new Writer().strings(1, scopes)));
    }
    writer.message(12, entry);
  }
  const schemes = new Writer();
  for (const [name, scheme] of entries(document.securityDefinitions)) {
    const apiKey = new Writer()
      .string(1, scheme.type)
      .string(2, scheme.name)
      .string(3, scheme.in)
      .string(4, scheme.description);
    schemes.message(1, named(name, new Writer().message(2, apiKey)));
  }
  writer.message(13, schemes);
  return extensions(writer, 16, document).finish();
}
