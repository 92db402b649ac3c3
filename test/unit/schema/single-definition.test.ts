import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";
import type { z } from "zod";
import {
  ProxySpecSchema,
  ServiceConfigSpecSchema,
  ServiceRevisionSpecSchema,
  ServiceSpecSchema,
} from "../../../sdk/schema";
import { typeMeta } from "../../../sdk/schema/meta";
import { unwrapField } from "../../../sdk/schema/walk";

const SCHEMA_DIR = join(__dirname, "../../../sdk/schema");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

const SOURCES = sourceFiles(SCHEMA_DIR).map((file) => ({
  file: relative(SCHEMA_DIR, file),
  text: readFileSync(file, "utf8"),
}));

/** Every object type reachable from the three spec schemas, by API type name, with the instances found. */
function objectTypes(): Map<string, Set<z.core.$ZodType>> {
  const types = new Map<string, Set<z.core.$ZodType>>();
  const visit = (schema: z.core.$ZodType): void => {
    const inner = unwrapField(schema).schema;
    const def = inner._zod.def as unknown as {
      shape?: Record<string, z.core.$ZodType>;
      element?: z.core.$ZodType;
      valueType?: z.core.$ZodType;
    };
    const name = typeMeta.get(inner)?.typeName;
    if (name !== undefined) {
      const seen = types.get(name) ?? new Set();
      if (seen.has(inner)) return;
      types.set(name, seen.add(inner));
    }
    for (const child of [...Object.values(def.shape ?? {}), def.element, def.valueType])
      if (child) visit(child);
  };
  for (const root of [ProxySpecSchema, ServiceSpecSchema, ServiceRevisionSpecSchema]) visit(root);
  return types;
}

test("every object type is one schema instance, reused wherever the type appears", () => {
  const types = objectTypes();
  expect([...types].filter(([, instances]) => instances.size !== 1).map(([name]) => name)).toEqual([]);
  expect(types.size).toBeGreaterThanOrEqual(30);
});

test("every object type is declared in exactly one module, and no module declares anonymous objects", () => {
  const declarations = SOURCES.flatMap(({ file, text }) =>
    [...text.matchAll(/objectType\(\s*"(\w+)"/g)].map((match) => ({ file, name: match[1] })),
  );
  const names = declarations.map(({ name }) => name);
  expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  expect(new Set(names)).toEqual(new Set(objectTypes().keys()));
  const anonymous = SOURCES.filter(
    ({ file, text }) => file !== "meta.ts" && /z\.(strictObject|object|looseObject)\(/.test(text),
  );
  expect(anonymous.map(({ file }) => file)).toEqual([]);
});

test("ServiceRevisionSpec reuses the ServiceConfigSpec fields instead of declaring them again", () => {
  const shared = Object.keys(ServiceConfigSpecSchema.shape) as (keyof typeof ServiceConfigSpecSchema.shape)[];
  // runtime is the one difference: required in a Service's template (section 7), optional on a revision.
  for (const field of shared.filter((name) => name !== "runtime"))
    expect(ServiceRevisionSpecSchema.shape[field]).toBe(ServiceConfigSpecSchema.shape[field]);
  expect(ServiceRevisionSpecSchema.shape.runtime.unwrap()).toBe(ServiceConfigSpecSchema.shape.runtime);
  expect(Object.keys(ServiceRevisionSpecSchema.shape).sort()).toEqual([...shared, "bundle"].sort());
  const definingModules = SOURCES.filter(({ text }) => /^\s+backend: BackendConfigSchema/m.test(text));
  expect(definingModules.map(({ file }) => file)).toEqual(["service-config.ts"]);
});
