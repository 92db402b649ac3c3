// The built package's root entry as programs load it: CommonJS (a TypeScript program compiled by Pulumi) and
// ES modules, run by the pinned Node from `dist/`, which `npm test` builds before the suites.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const NODE = path.join(ROOT, "node_modules/.bin/node");

function run(args: string[]): string {
  return execFileSync(NODE, args, { cwd: ROOT, encoding: "utf8" }).trim();
}

describe("the package root (@exampledev/pulumi)", () => {
  it("declares resources without loading zod, and loads it when a program reads RULES", () => {
    const zodLoaded = `Object.keys(require.cache).some((file) => file.includes("${path.sep}zod${path.sep}"))`;
    const script = `
      const root = require("@exampledev/pulumi");
      const before = ${zodLoaded};
      const rules = root.RULES.length;
      console.log(JSON.stringify({ before, rules, after: ${zodLoaded} }));`;
    const seen = JSON.parse(run(["-e", script]));
    expect(seen).toEqual({ before: false, rules: expect.any(Number), after: true });
    expect(seen.rules).toBeGreaterThan(0);
  });

  it("gives ES modules every export by name", () => {
    const script = `
      import * as root from "@exampledev/pulumi";
      import { KINDS, Proxy, RULES, Service, ServiceRevision, TYPE_TOKENS, UNKNOWN, validateSpec } from "@exampledev/pulumi";
      const named = { KINDS, Proxy, RULES, Service, ServiceRevision, TYPE_TOKENS, UNKNOWN, validateSpec };
      console.log(JSON.stringify({
        types: Object.fromEntries(Object.entries(named).map(([name, value]) => [name, typeof value])),
        names: Object.keys(root).filter((name) => !["default", "__esModule", "module.exports"].includes(name)).sort(),
      }));`;
    const seen = JSON.parse(run(["--input-type=module", "-e", script]));
    expect(seen.types).toEqual({
      KINDS: "object",
      Proxy: "function",
      RULES: "object",
      Service: "function",
      ServiceRevision: "function",
      TYPE_TOKENS: "object",
      UNKNOWN: "string",
      validateSpec: "function",
    });
    // The lookup functions (docs/lookups.md) besides.
    const lookups = [
      "getProxy",
      "getProxyOutput",
      "getService",
      "getServiceOutput",
      "getServiceRevision",
      "getServiceRevisionOutput",
      "listProxies",
      "listProxiesOutput",
      "listServiceRevisions",
      "listServiceRevisionsOutput",
      "listServices",
      "listServicesOutput",
    ];
    expect(seen.names).toEqual([...Object.keys(seen.types), ...lookups].sort());
  });
});
