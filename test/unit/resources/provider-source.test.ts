import { describe, expect, it } from "vitest";
import { PROVIDER_MODULE, providerSource } from "../../../sdk/resources/provider-source";
import { KIND_NAMES } from "../../../sdk/schema";

/** Evaluates the text as the dynamic-provider host does (a module, then `handler()`), with `require` recorded. */
function load(text: string) {
  const required: string[] = [];
  const fakeRequire = (id: string) => {
    required.push(id);
    return { resourceProvider: (kind: string) => ({ kind }) };
  };
  const module = { exports: {} as { handler?: () => unknown } };
  new Function("exports", "require", "module", text)(module.exports, fakeRequire, module);
  return { provider: module.exports.handler?.(), required };
}

describe("the __provider text of the resource classes", () => {
  it.each(KIND_NAMES)(
    "loads the %s provider from the package by name when the host calls handler()",
    (kind) => {
      const { provider, required } = load(providerSource(kind));
      expect(provider).toEqual({ kind });
      expect(required).toEqual([PROVIDER_MODULE]);
    },
  );

  it("is one short line per kind that names only the module and the kind (state stores it twice per resource)", () => {
    for (const kind of KIND_NAMES) {
      // Nothing of the call (a path, a closure's text, a counter) may reach it: state would differ per resource.
      expect(providerSource(kind)).toBe(
        `exports.handler = () => require("${PROVIDER_MODULE}").resourceProvider("${kind}");`,
      );
      expect(providerSource(kind).length).toBeLessThan(120);
    }
  });
});
