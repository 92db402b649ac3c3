// One definition of the status vocabulary and of the resource type tokens: condition types, their reasons
// and the status types live in sdk/schema/status.ts, the type tokens in sdk/resources/type-tokens.ts.
// Everything else imports them; these tests fail when one is written again elsewhere.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { expect, test } from "vitest";
import { Proxy, Service, ServiceRevision } from "../../sdk/resources";
import { TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { KIND_NAMES } from "../../sdk/schema";
import {
  CONDITION_REASONS,
  CONDITION_TYPES,
  READINESS_REASONS,
  READINESS_TYPES,
} from "../../sdk/schema/status";

const ROOT = join(__dirname, "../..");
const STATUS_MODULE = "sdk/schema/status.ts";
const TOKENS_MODULE = "sdk/resources/type-tokens.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return /\.(ts|mts|cts|js)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Source without comments, so prose may name a condition; `//` after `:` (a URL in a string) stays. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[\s;{}(),])\/\/.*$/gm, "$1");
}

const SOURCES = ["sdk", "server", "provider", "policies", "controller"].flatMap(sourceFiles).map((file) => {
  const text = readFileSync(join(ROOT, file), "utf8");
  return { file, text, code: code(text) };
});

const VOCABULARY = [
  ...Object.values(CONDITION_TYPES),
  ...Object.values(CONDITION_REASONS).flatMap((reasons) => Object.values(reasons) as string[]),
  ...Object.values(READINESS_TYPES),
  // "Ready" is a type and a reason at once (Ready True, reason Ready), as in most Kubernetes controllers.
  ...Object.values(READINESS_REASONS).filter((reason) => reason !== READINESS_TYPES.Ready),
];

function literalsIn(source: string): string[] {
  return VOCABULARY.filter((word) =>
    ['"', "'", "`"].some((quote) => source.includes(`${quote}${word}${quote}`)),
  );
}

test("the status module declares every condition type and reason the controller reports", () => {
  expect(Object.values(CONDITION_TYPES)).toEqual([
    "Accepted",
    "EgressReady",
    "LiveRevisionReady",
    "SourceReady",
  ]);
  expect(Object.keys(CONDITION_REASONS)).toEqual(Object.values(CONDITION_TYPES));
  expect(Object.values(READINESS_TYPES)).toEqual(["Ready", "Reconciling", "Stalled"]);
  for (const [key, value] of Object.entries(READINESS_REASONS)) expect(value).toBe(key);
  for (const reasons of Object.values(CONDITION_REASONS))
    for (const [key, value] of Object.entries(reasons)) expect(value).toBe(key);
  expect(new Set(VOCABULARY).size).toBe(VOCABULARY.length);
});

test("no condition type or reason is spelt as a string literal outside the status module", () => {
  const found = SOURCES.filter(({ file }) => file !== STATUS_MODULE).flatMap(({ file, code }) =>
    literalsIn(code).map((literal) => ({ file, literal })),
  );
  expect(found).toEqual([]);
});

test("the status types are declared only in the status module", () => {
  // `interface X` or `type X =`; an import or re-export (`type X,`) declares nothing.
  const declaration =
    /\b(?:interface\s+(ServiceStatus|ObjectStatus|ConditionStatus)\b|type\s+(ServiceStatus|ObjectStatus|ConditionStatus)\s*(?:<[^>]*>\s*)?=)/g;
  const found = SOURCES.flatMap(({ file, code }) =>
    [...code.matchAll(declaration)].map((match) => `${file}: ${match[1] ?? match[2]}`),
  );
  expect(found.sort()).toEqual(
    ["ConditionStatus", "ObjectStatus", "ServiceStatus"].map((name) => `${STATUS_MODULE}: ${name}`),
  );
});

test("no type token is written by hand outside the type-token module", () => {
  const found = SOURCES.filter(
    ({ file, code }) => file !== TOKENS_MODULE && /pulumi-nodejs:dynamic|dynamic\/exampledev/.test(code),
  );
  expect(found.map(({ file }) => file)).toEqual([]);
  // The classes register under the token module's token of their kind, nothing spelt again.
  const base = SOURCES.find(({ file }) => file === "sdk/resources/api-resource.ts")?.code ?? "";
  expect(base).toMatch(/super\(TYPE_TOKENS\[kind\],/);
});

test("the type tokens are the ones Pulumi gives the resource classes", async () => {
  const types: string[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        types.push(args.type);
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    "project",
    "stack",
    true,
  );
  const classes = { Proxy, Service, ServiceRevision };
  const resources = KIND_NAMES.map((kind) => new classes[kind](kind.toLowerCase(), { spec: {} as never }));
  await Promise.all(resources.map((resource) => new Promise((done) => resource.urn.apply(done))));
  expect(types.sort()).toEqual(KIND_NAMES.map((kind) => TYPE_TOKENS[kind]).sort());
});

/** Relative imports of a module, resolved to repository paths; package imports as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/(?:from|import|require\()\s*["']([^"']+)["']/g)].map(([, specifier = ""]) => {
    if (!specifier.startsWith(".")) return specifier;
    const base = resolve(ROOT, dirname(file), specifier);
    const candidates = [`${base}.ts`, join(base, "index.ts")];
    const found = candidates.find((candidate) => existsSync(candidate));
    if (!found) throw new Error(`${file}: cannot resolve ${specifier}`);
    return relative(ROOT, found);
  });
}

test("the policies reach the type tokens without loading @pulumi/pulumi", () => {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const target of importsOf(file)) {
      if (target.endsWith(".ts")) visit(target);
      else
        packages.add(
          target
            .split("/")
            .slice(0, target.startsWith("@") ? 2 : 1)
            .join("/"),
        );
    }
  };
  visit("policies/resources.ts");
  expect(seen).toContain(TOKENS_MODULE);
  expect([...packages]).not.toContain("@pulumi/pulumi");
  expect([...seen].filter((file) => file.startsWith("sdk/resources/"))).toEqual([TOKENS_MODULE]);
});
