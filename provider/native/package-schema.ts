// The Pulumi package schema of the native provider (`pulumi-resource-exampledev`), derived from the API's
// OpenAPI schemas, which `sdk/schema/openapi.ts` derives from zod: types, enumerations, defaults, required
// fields and every description come from that one walk; this module only translates OpenAPI's shapes into
// Pulumi's, marks the spec's secret fields and adds what is Pulumi's own (config, resource options).

import { SETTINGS, type SettingInfo } from "../../sdk/client/settings";
import { NATIVE_PACKAGE, nativeModule, nativeTypeToken } from "../../sdk/resources/type-tokens";
import { KIND_DESCRIPTIONS } from "../../sdk/schema/descriptions";
import { KIND_NAMES, KINDS, type KindName } from "../../sdk/schema/kinds";
import { allSchemas, OBJECT_META, type SchemaObject } from "../../sdk/schema/openapi";
import { SECRET_FIELDS } from "../../sdk/schema/secrets";
import { getFunctionToken, listFunctionToken, lookupTypeToken } from "./functions";
import { EXTRA_OUTPUTS, EXTRA_TYPES, INPUT_OPTIONS } from "./resource-properties";

export type PulumiSchema = Record<string, unknown>;
type Property = Record<string, unknown>;

const COMPONENT_PREFIX = "#/components/schemas/";
/** ObjectMeta lives in the API group of no kind: Pulumi types it once, under `meta/v1` as Kubernetes does. */
const META_TOKEN = `${NATIVE_PACKAGE}:meta/v1:ObjectMeta`;
/** The ObjectMeta fields a program writes, then those the server sets (outputs only). */
const META_INPUTS = ["name", "labels", "annotations"] as const;
const META_OUTPUTS = ["uid", "resourceVersion", "generation", "creationTimestamp"] as const;

const secretFields: ReadonlySet<string> = new Set(SECRET_FIELDS.map(({ type, field }) => `${type}.${field}`));

/** `dev.example.compute.v1alpha1.BundleRef` -> `exampledev:compute/v1alpha1:BundleRef`. */
function tokenOfComponent(component: string): string {
  if (component.startsWith("io.k8s.")) return META_TOKEN;
  const parts = component.split(".");
  const [typeName, version, group] = [parts.at(-1), parts.at(-2), parts.at(-3)];
  if (typeName === undefined || version === undefined || group === undefined) {
    throw new TypeError(`unexpected component name ${component}`);
  }
  return `${NATIVE_PACKAGE}:${group}/${version}:${typeName}`;
}

function typeNameOf(token: string): string {
  return token.slice(token.lastIndexOf(":") + 1);
}

const upperFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

class Translator {
  readonly types: Record<string, SchemaObject> = {};

  constructor(readonly components: Record<string, SchemaObject>) {}

  /** A Pulumi object type for an OpenAPI component, added once. */
  objectType(component: string): string {
    const token = tokenOfComponent(component);
    if (this.types[token] !== undefined) return token;
    const source = this.components[component];
    if (source === undefined) throw new TypeError(`no OpenAPI component ${component}`);
    this.types[token] = {}; // reserved: a type that reaches itself gets a $ref, not a loop
    const typeName = typeNameOf(token);
    const properties: Record<string, Property> = {};
    for (const [name, schema] of Object.entries((source.properties ?? {}) as Record<string, SchemaObject>)) {
      properties[name] = {
        ...this.property(schema, token, name),
        ...(secretFields.has(`${typeName}.${name}`) && { secret: true }),
      };
    }
    this.types[token] = {
      type: "object",
      ...(source.description !== undefined && { description: source.description }),
      properties,
      ...(Array.isArray(source.required) && { required: source.required }),
    };
    return token;
  }

  /** A property: its type (a `$ref` for objects and enumerations), words and default. */
  property(schema: SchemaObject, owner: string, name: string): Property {
    const { description, default: defaultValue } = schema;
    const shape = this.shape(schema, owner, name);
    // Pulumi's defaults are for primitive values; the words keep the others ("Defaults to {...}.").
    const primitiveDefault = ["string", "number", "boolean"].includes(typeof defaultValue);
    return {
      ...shape,
      ...(typeof description === "string" && { description }),
      ...(primitiveDefault && { default: defaultValue }),
    };
  }

  private shape(schema: SchemaObject, owner: string, name: string): Property {
    const ref = (schema.$ref ?? (schema.allOf as SchemaObject[] | undefined)?.[0]?.$ref) as
      | string
      | undefined;
    if (ref !== undefined) {
      const component = ref.slice(COMPONENT_PREFIX.length);
      if (component === OBJECT_META) return { $ref: `#/types/${this.metaType()}` };
      if (component.startsWith("io.k8s.")) return { type: "string" }; // Time: RFC 3339
      return { $ref: `#/types/${this.objectType(component)}` };
    }
    if (Array.isArray(schema.enum)) return { $ref: `#/types/${this.enumType(schema.enum, owner, name)}` };
    if (
      schema["x-kubernetes-preserve-unknown-fields"] === true &&
      schema.additionalProperties === undefined
    ) {
      return { $ref: "pulumi.json#/Any" };
    }
    switch (schema.type) {
      case "string":
      case "boolean":
      case "number":
      case "integer":
        return { type: schema.type };
      case "array":
        return { type: "array", items: this.shape(schema.items as SchemaObject, owner, name) };
      case "object":
        return {
          type: "object",
          additionalProperties: this.shape(schema.additionalProperties as SchemaObject, owner, name),
        };
      default:
        throw new TypeError(`no Pulumi form for the OpenAPI schema of ${owner}.${name}`);
    }
  }

  /** An enumeration, named after its type and field (`BackendConfigProtocol`). */
  private enumType(values: unknown[], owner: string, name: string): string {
    const token = `${owner}${upperFirst(name)}`;
    this.types[token] = {
      type: "string",
      description: `The values of ${typeNameOf(owner)}.${name}.`,
      enum: values.map((value) => ({ value })),
    };
    return token;
  }

  /** The object metadata a program writes and the server completes, in the words of the OpenAPI schema. */
  private metaType(): string {
    if (this.types[META_TOKEN] !== undefined) return META_TOKEN;
    const meta = this.components[OBJECT_META]?.properties as Record<string, SchemaObject>;
    const properties: Record<string, Property> = {};
    for (const name of [...META_INPUTS, ...META_OUTPUTS]) {
      const schema = meta[name];
      if (schema === undefined) throw new TypeError(`ObjectMeta has no ${name}`);
      properties[name] = this.property(schema, META_TOKEN, name);
    }
    properties.name = {
      ...properties.name,
      description: `${properties.name?.description} Default: the Pulumi name plus a random suffix, kept in state.`,
    };
    this.types[META_TOKEN] = {
      type: "object",
      description: this.components[OBJECT_META]?.description,
      properties,
    };
    return META_TOKEN;
  }
}

function configVariable(setting: SettingInfo): Property {
  const type =
    typeof setting.default === "number"
      ? "number"
      : typeof setting.default === "boolean"
        ? "boolean"
        : "string";
  return {
    type,
    description: setting.description,
    // A default that follows another setting is the provider's to decide: the SDKs would send a constant.
    ...(setting.default !== undefined &&
      setting.defaultOffWith === undefined && { default: setting.default }),
    defaultInfo: { environment: [setting.env] },
    ...(setting.secret && { secret: true }),
  };
}

function configVariables(): Record<string, Property> {
  return Object.fromEntries(
    Object.entries(SETTINGS).map(([name, setting]) => {
      const { defaultInfo: _env, ...variable } = configVariable(setting);
      return [name, variable];
    }),
  );
}

function resource(kind: KindName, translator: Translator): SchemaObject {
  const component = `${KINDS[kind].group.split(".").reverse().join(".")}.${KINDS[kind].version}.${kind}`;
  const source = translator.components[component];
  const fields = source?.properties as Record<string, SchemaObject>;
  const field = (name: string) =>
    translator.property(fields[name] as SchemaObject, nativeTypeToken(kind), name);
  const inputs: Record<string, Property> = {
    metadata: field("metadata"),
    spec: field("spec"),
    ...INPUT_OPTIONS,
  };
  return {
    description: KIND_DESCRIPTIONS[kind],
    inputProperties: inputs,
    requiredInputs: ["spec"],
    properties: { ...inputs, status: field("status"), ...EXTRA_OUTPUTS[kind] },
    required: ["metadata", "spec", "status"],
  };
}

/** What a lookup returns of an object: metadata, spec and status as the API returns them, the kind's outputs. */
function lookupOutputs(kind: KindName, translator: Translator): SchemaObject {
  const component = `${KINDS[kind].group.split(".").reverse().join(".")}.${KINDS[kind].version}.${kind}`;
  const fields = translator.components[component]?.properties as Record<string, SchemaObject>;
  const field = (name: string) =>
    translator.property(fields[name] as SchemaObject, nativeTypeToken(kind), name);
  return {
    properties: {
      metadata: field("metadata"),
      spec: field("spec"),
      status: field("status"),
      ...EXTRA_OUTPUTS[kind],
    },
    required: ["metadata", "spec", "status"],
  };
}

/** `getService` and its kin (functions.ts): the object named `name`, as the API returns it, with the kind's outputs. */
function lookupFunction(kind: KindName, translator: Translator): SchemaObject {
  return {
    description: `Reads the ${kind} named \`name\`, which this stack need not manage, as the API returns it (secret values as its placeholders). Fails naming the kind, the name and the API when there is none.`,
    inputs: {
      properties: { name: { type: "string", description: `The ${kind}'s name (metadata.name).` } },
      required: ["name"],
    },
    outputs: lookupOutputs(kind, translator),
  };
}

/** `listServices` and its kin: every object (of a label selector; revisions of a Service), oldest first. */
function listFunction(kind: KindName): SchemaObject {
  return {
    description: `Every ${kind} (matching \`labelSelector\`${kind === "ServiceRevision" ? ", owned by `service`" : ""}), every page, oldest first, as the API returns them.`,
    inputs: {
      properties: {
        labelSelector: {
          type: "string",
          description: "A Kubernetes label selector (`tier=edge,team in (a,b)`).",
        },
        ...(kind === "ServiceRevision" && {
          service: { type: "string", description: "Only the revisions this Service owns." },
        }),
      },
    },
    outputs: {
      properties: { items: { type: "array", items: { $ref: `#/types/${lookupTypeToken(kind)}` } } },
      required: ["items"],
    },
  };
}

/** The list functions' item types, one per kind. */
function lookupTypes(translator: Translator): Record<string, SchemaObject> {
  return Object.fromEntries(
    KIND_NAMES.map((kind) => [
      lookupTypeToken(kind),
      {
        type: "object",
        description: `A ${kind} as a lookup returns it.`,
        ...lookupOutputs(kind, translator),
      },
    ]),
  );
}

/** The package schema, as `pulumi package gen-sdk` and the engine read it. */
export function packageSchema(version: string): PulumiSchema {
  const translator = new Translator(allSchemas(3));
  const resources = Object.fromEntries(
    KIND_NAMES.map((kind) => [nativeTypeToken(kind), resource(kind, translator)]),
  );
  const modules = [...new Set(KIND_NAMES.map(nativeModule)), "meta/v1"];
  return {
    name: NATIVE_PACKAGE,
    displayName: "exampledev",
    version,
    description:
      "Proxy, Service and ServiceRevision objects of the Proxy and Compute Service Configuration API, from any Pulumi language.",
    keywords: ["pulumi", "exampledev", "category/cloud", "kind/native"],
    license: "Apache-2.0",
    repository: "https://github.com/exampledev/pulumi",
    publisher: "exampledev",
    meta: { moduleFormat: "(.*)" },
    config: { variables: configVariables() },
    provider: {
      description: "The exampledev provider: where the API is and how to talk to it.",
      inputProperties: Object.fromEntries(
        Object.entries(SETTINGS).map(([name, setting]) => [name, configVariable(setting)]),
      ),
    },
    resources,
    functions: Object.fromEntries(
      KIND_NAMES.flatMap((kind) => [
        [getFunctionToken(kind), lookupFunction(kind, translator)],
        [listFunctionToken(kind), listFunction(kind)],
      ]),
    ),
    types: Object.fromEntries(
      Object.entries({ ...translator.types, ...EXTRA_TYPES, ...lookupTypes(translator) }).sort(([a], [b]) =>
        a.localeCompare(b),
      ),
    ),
    language: {
      // The SDK ships inside this package as `@exampledev/pulumi/native`, the import `pulumi import` writes.
      nodejs: { packageName: "@exampledev/pulumi/native", respectSchemaVersion: true },
      go: {
        importBasePath: "github.com/exampledev/pulumi-exampledev/sdk/go/exampledev",
        generateResourceContainerTypes: false,
        packageImportAliases: Object.fromEntries(
          modules.map((module) => [
            `github.com/exampledev/pulumi-exampledev/sdk/go/exampledev/${module}`,
            module.replace("/", ""),
          ]),
        ),
      },
      python: { packageName: "pulumi_exampledev", respectSchemaVersion: true },
      csharp: { rootNamespace: "ExampleDev", respectSchemaVersion: true },
    },
  };
}
