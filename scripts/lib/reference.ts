// docs/reference.md, generated whole from the zod schema: every field of every kind's spec with its type, its
// default, the rules that check it, whether it is secret and whether changing it replaces the object. The
// fields come from the walk the defaults table uses (schema-fields.ts); types, words, rules and secrets from
// the schema's own data, as the OpenAPI documents (sdk/schema/openapi.ts) read them.
import { z } from "zod";
import { packageSchema } from "../../provider/native/package-schema";
import { TYPE_TOKENS } from "../../sdk/resources";
import {
  KIND_NAMES,
  KINDS,
  type KindName,
  MAX_NAME_LENGTH,
  RULES,
  type RuleInfo,
  SECRET_FIELDS,
} from "../../sdk/schema";
import { KIND_DESCRIPTIONS, typeDocs } from "../../sdk/schema/descriptions";
import { LIST_MAP_KEYS } from "../../sdk/schema/lists";
import { typeMeta } from "../../sdk/schema/meta";
import { isRequiredField } from "../../sdk/schema/openapi";
import { def, unwrapField } from "../../sdk/schema/walk";
import { code, conditionalDefaults, markdown, table } from "./docs";
import { generatedHeader } from "./generated-header";
import { policiesSection } from "./reference-policies";
import { type SchemaField, schemaFields } from "./schema-fields";

export const REFERENCE_FILE = "docs/reference.md";
export const REFERENCE_SOURCE =
  "the zod schema (sdk/schema: fields, defaults, descriptions, RULES, SECRET_FIELDS; scripts/lib/reference.ts), the native package schema's functions (provider/native/package-schema.ts) and the policy pack's policies (policies/policies.ts; scripts/lib/reference-policies.ts)";

type Schema = z.core.$ZodType;

/** Where the rules are explained, relative to the reference. */
const RULES_TABLE = "policy-pack.md#validation-rules";

// ---------------------------------------------------------------------------------------------------------
// Rule paths

/**
 * Whether a rule's path pattern (one alternative) names the field at `path`: `**` is any prefix inside the
 * spec, `[*]` any list item (written so in the field paths too), `*` any one key.
 */
export function pathMatches(pattern: string, path: string): boolean {
  const source = pattern
    .split(/(\*\*\.?|\[\*\]|\*)/)
    .map((part) => {
      if (part === "**.") return "(?:.*\\.)?";
      if (part === "**") return ".*";
      if (part === "[*]") return "\\[\\*\\]";
      if (part === "*") return "[^.[\\]]+";
      return part.replace(/[.[\]()^$+?{}|\\]/g, "\\$&");
    })
    .join("");
  return new RegExp(`^${source}$`).test(path);
}

const alternatives = (rule: RuleInfo) => rule.path.split(" | ");

/** The rules every field is checked by, whatever its path (`**`): said once, above the tables. */
const EVERYWHERE = RULES.filter((rule) => alternatives(rule).every((pattern) => pattern === "**"));

/** The rules that check a value of this field where it is (not the rules about changes). */
export function fieldRules(field: SchemaField): string[] {
  const byPath = RULES.filter(
    (rule) =>
      !rule.change &&
      !EVERYWHERE.includes(rule) &&
      rule.kinds.includes(field.kind) &&
      alternatives(rule).some((pattern) => pathMatches(pattern, field.path)),
  ).map((rule) => rule.id);
  // The value checks the schema carries (formats, ranges) report their rule id too; they name the same rules.
  const checks = (
    def(field.value) as { checks?: readonly { _zod: { def: { params?: { rule?: string } } } }[] }
  ).checks;
  const byCheck = (checks ?? []).flatMap((check) => check._zod.def.params?.rule ?? []);
  return RULES.map((rule) => rule.id).filter((id) => byPath.includes(id) || byCheck.includes(id));
}

/**
 * The rules about changes that replace the object when this field changes: one that names the field, or one
 * about the whole spec (a ServiceRevision's). A rule about a field judges that field, not what is inside it
 * (`service-mode-immutable` looks at whether backend or filter is set, not at their contents).
 */
export function replacingRules(field: SchemaField): string[] {
  return RULES.filter(
    (rule) =>
      rule.change &&
      rule.kinds.includes(field.kind) &&
      alternatives(rule).some((pattern) => pattern === "spec" || pathMatches(pattern, field.path)),
  ).map((rule) => rule.id);
}

// ---------------------------------------------------------------------------------------------------------
// Cells

/** A field's type in words: `string`, `integer (int32)`, `list of EnvVar, merged by name`, a type name. */
export function typeText(schema: Schema): string {
  const inner = unwrapField(schema).schema;
  const value = def(inner) as ReturnType<typeof def> & {
    entries?: Record<string, string>;
    format?: string;
  };
  switch (value.type) {
    case "string":
    case "boolean":
      return value.type;
    case "number":
      if (value.format === "int32") return "integer (int32)";
      return value.format === "safeint" ? "integer" : "number";
    case "enum":
      return `one of ${Object.values(value.entries ?? {})
        .map((entry) => code(entry))
        .join(", ")}`;
    case "array": {
      const element = unwrapField(value.element as Schema).schema;
      const keys = LIST_MAP_KEYS[typeMeta.get(element)?.typeName ?? ""];
      const merged = keys === undefined ? "" : `, merged by ${keys.map(code).join(", ")}`;
      return `list of ${typeText(element)}${merged}`;
    }
    case "record": {
      const entry = unwrapField(value.valueType as Schema).schema;
      return ["unknown", "any"].includes(def(entry).type) ? "free-form map" : `map of ${typeText(entry)}`;
    }
    case "unknown":
    case "any":
      return "any value";
    case "object":
      return typeMeta.get(inner)?.typeName ?? "object";
    default:
      throw new TypeError(`the reference has no words for the zod type "${value.type}"`);
  }
}

function defaultCell(field: SchemaField): string {
  if (field.hasDefault) {
    const { defaultValue: value } = field;
    return code(typeof value === "string" ? value : JSON.stringify(value));
  }
  const conditional = conditionalDefaults().find(
    ({ typeName, field: name }) => typeName === field.typeName && name === field.field,
  );
  if (conditional !== undefined) return `${code(JSON.stringify(conditional.value))} with ${conditional.when}`;
  return isRequiredField(field.schema) ? "required" : "";
}

function secretCell(field: SchemaField): string {
  const secret = SECRET_FIELDS.find(
    ({ type, field: name }) => type === field.typeName && name === field.field,
  );
  if (secret === undefined) return "";
  return secret.placeholder === undefined ? "yes, write-only" : `yes, read as ${code(secret.placeholder)}`;
}

function descriptionCell(field: SchemaField): string {
  const words =
    z.globalRegistry.get(field.schema)?.description ??
    z.globalRegistry.get(field.value)?.description ??
    typeDocs(field.parent)?.fields[field.field];
  return markdown(words ?? "");
}

const list = (ids: readonly string[]) => ids.map(code).join(", ");

// ---------------------------------------------------------------------------------------------------------
// The page

function kindSection(kind: KindName, fields: readonly SchemaField[]): string {
  const info = KINDS[kind];
  const rows = fields.map((field) => {
    const replacing = replacingRules(field);
    return [
      code(field.path),
      typeText(field.value),
      defaultCell(field),
      list(fieldRules(field)),
      secretCell(field),
      replacing.length === 0 ? "in place" : `replaces (${list(replacing)})`,
      descriptionCell(field),
    ];
  });
  const changeRules = RULES.filter((rule) => rule.change && rule.kinds.includes(kind));
  return [
    `## ${kind}`,
    "",
    `${markdown(KIND_DESCRIPTIONS[kind])} ${code(`apiVersion: ${info.apiVersion}`)}, plural ${code(info.plural)}, dynamic resource type ${code(TYPE_TOKENS[kind])}.`,
    "",
    table(["field", "type", "default", "rules", "secret", "on change", "description"], rows),
    ...changeRules.flatMap((rule) => [
      "",
      `**Replaced under ${code(rule.id)}:** ${markdown(rule.description)} The provider's diff replaces the object`,
      "instead of updating it.",
    ]),
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------------------
// Functions

interface FunctionProperty {
  type?: string;
  items?: { $ref?: string };
  $ref?: string;
  description?: string;
}

interface SchemaFunction {
  description: string;
  inputs: { properties: Record<string, FunctionProperty>; required?: string[] };
  outputs: { properties: Record<string, FunctionProperty>; required?: string[] };
}

/** A property's type as the tables write it: `string`, `ServiceLookup[]`, `Service spec` for a reference. */
function propertyType(property: FunctionProperty): string {
  const ref = property.$ref ?? property.items?.$ref;
  const named = ref?.split(/[/:]/).pop();
  if (property.type === "array") return `${named ?? "unknown"}[]`;
  return property.type ?? named ?? "object";
}

/**
 * The lookup functions, from the native package schema (the one list both paths serve): each with its token,
 * its TypeScript names in `@exampledev/pulumi`, its arguments and what it returns.
 */
function functionsSection(): string {
  const functions = packageSchema("0.0.0").functions as Record<string, SchemaFunction>;
  const sections = Object.entries(functions).map(([token, fn]) => {
    const name = token.split(":").pop() as string;
    const required = new Set(fn.inputs.required ?? []);
    const inputs = Object.entries(fn.inputs.properties).map(([property, info]) => [
      code(property),
      propertyType(info),
      required.has(property) ? "required" : "optional",
      markdown(info.description ?? ""),
    ]);
    const outputs = Object.entries(fn.outputs.properties).map(([property, info]) => [
      code(property),
      propertyType(info),
      markdown(info.description ?? ""),
    ]);
    return [
      `### ${name}`,
      "",
      `${markdown(fn.description)} TypeScript: ${code(`${name}(args)`)} (a promise) and ${code(`${name}Output(args)`)}`,
      `(Inputs in, an Output out) from ${code("@exampledev/pulumi")}; native package: ${code(token)}.`,
      "",
      table(["argument", "type", "", "description"], inputs),
      "",
      table(["result", "type", "description"], outputs),
    ].join("\n");
  });
  return [
    "## Functions",
    "",
    "Functions that read objects a stack does not manage ([Look up existing objects](lookups.md), with an",
    "example of each). They read the provider's settings from the stack configuration and work at preview.",
    "",
    ...sections.flatMap((section) => [section, ""]),
  ].join("\n");
}

/** The whole of docs/reference.md. */
export function referencePage(): string {
  const fields = schemaFields();
  return [
    `<!-- ${generatedHeader(REFERENCE_SOURCE)} -->`,
    "",
    "# Resource reference",
    "",
    "For people writing specs, in a Pulumi program or over HTTP: every field of the spec of each kind, wherever",
    "it appears, with its type, its default, the rules that check it, whether it is a secret and whether",
    "changing it replaces the object. It is generated from the zod schema, the one place where fields, defaults",
    "and rules are written, so it says what the provider's `check`, the policy pack and the server enforce.",
    "`kubectl explain` shows the same words from the server's OpenAPI ([The API over HTTP](http-api.md)).",
    "",
    "How to read the tables:",
    "",
    "- **field**: the path from the object root, as in error messages; `[*]` is any item of a list.",
    "- **default**: the value filled in when the field is absent (arguments may leave it out, outputs have it);",
    "  `required` when it must be set whenever its parent object is.",
    `- **rules**: the ids of the rules that check the field, explained in the [rules table](${RULES_TABLE});`,
    `  besides them, the structural rules ${list(EVERYWHERE.map((rule) => rule.id))} check every field.`,
    "- **secret**: the value is encrypted in Pulumi state and never echoed by the API: it reads back as a",
    "  placeholder, which is not drift, or not at all (write-only).",
    "- **on change**: `in place` is an update; `replaces` names the rule about changes under which the API",
    "  refuses the update, so the provider deletes the object and creates it again (see",
    "  [What the provider does](provider.md#diff)).",
    "",
    `Every kind also has \`metadata\`, as in Kubernetes: \`name\` is a DNS-1123 subdomain of at most ${MAX_NAME_LENGTH}`,
    "characters, and changing it replaces the object (the API holds one object per name; without a name the",
    "provider generates one, see [Resources](resources.md#options)); `labels` and `annotations` are string maps",
    "whose keys are an optional DNS-1123 prefix and a name of at most 63 characters (label values at most 63",
    "characters), changed in place. The provider's `check` and the server's admission enforce this syntax",
    "(`sdk/schema/metadata.ts`); `status` is the server's, never written by clients.",
    "",
    ...KIND_NAMES.flatMap((kind) => [
      kindSection(
        kind,
        fields.filter((field) => field.kind === kind),
      ),
      "",
    ]),
    functionsSection(),
    policiesSection(),
  ].join("\n");
}
