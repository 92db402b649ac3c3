// The declarations for moduleResolution node (scripts/node10-types.ts): only the imports of dependencies whose
// CommonJS declarations need esModuleInterop change; test/e2e/package-install.test.ts type-checks the result.
import { describe, expect, it } from "vitest";
import { legacyDeclaration } from "../../../scripts/node10-types";

describe("legacyDeclaration", () => {
  it("imports zod's ES module declarations, by path", () => {
    const text = 'import { z } from "zod";\nexport type T = import("zod").infer<typeof s>;\n';
    expect(legacyDeclaration(text, "sdk/schema/common.d.ts")).toBe(
      'import { z } from "zod/index.js";\nexport type T = import("zod/index.js").infer<typeof s>;\n',
    );
  });

  it("points pino and fastify at the stand-ins at the root of dist/node10, from any depth", () => {
    expect(legacyDeclaration('import type { Logger } from "pino";', "controller/replica.d.ts")).toBe(
      'import type { Logger } from "../pino-logger";',
    );
    expect(
      legacyDeclaration('import type { FastifyReply } from "fastify";', "server/routes/watch/index.d.ts"),
    ).toBe('import type { FastifyReply } from "../../../fastify-types";');
  });

  it("leaves every other import alone", () => {
    const text =
      'import * as pulumi from "@pulumi/pulumi";\nimport { x } from "./zod";\nimport { y } from "zod-extra";\n';
    expect(legacyDeclaration(text, "sdk/index.d.ts")).toBe(text);
  });
});
