import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { packageSchema } from "../../../provider/native/package-schema";
import { EXTRA_OUTPUTS } from "../../../provider/native/resource-properties";
import { SCHEMA_FILE, schemaText } from "../../../provider/native/schema-file";
import { SETTINGS } from "../../../sdk/client/settings";
import { KIND_OUTPUTS } from "../../../sdk/resources/kind-outputs";
import { NATIVE_TYPE_TOKENS } from "../../../sdk/resources/type-tokens";
import { KIND_NAMES, SECRET_FIELDS } from "../../../sdk/schema";

const REPO = path.resolve(__dirname, "../../..");
// biome-ignore lint/suspicious/noExplicitAny: the schema is JSON read by path in assertions
type Json = Record<string, any>;
const schema = packageSchema("0.0.0-test") as Json;

describe("the native package schema", () => {
  test(`${SCHEMA_FILE} is what \`npm run generate\` writes from the zod schema`, () => {
    const committed = readFileSync(path.join(REPO, SCHEMA_FILE), "utf8");
    expect(committed, `${SCHEMA_FILE} is out of date: run \`npm run generate\` and commit it`).toBe(
      schemaText(),
    );
  });

  test("has a resource per kind under its native token, with spec required", () => {
    expect(Object.keys(schema.resources).sort()).toEqual(Object.values(NATIVE_TYPE_TOKENS).sort());
    expect(NATIVE_TYPE_TOKENS).toEqual({
      Proxy: "exampledev:core/v1alpha2:Proxy",
      Service: "exampledev:compute/v1alpha1:Service",
      ServiceRevision: "exampledev:compute/v1alpha1:ServiceRevision",
    });
    for (const token of Object.values(NATIVE_TYPE_TOKENS)) {
      expect(schema.resources[token].requiredInputs).toEqual(["spec"]);
    }
  });

  test("marks every secret field of the spec secret, wherever its type appears", () => {
    for (const { type, field } of SECRET_FIELDS) {
      const holders = Object.entries(schema.types as Json).filter(([token]) => token.endsWith(`:${type}`));
      expect(holders.length, `a type ${type}`).toBeGreaterThan(0);
      for (const [token, holder] of holders) {
        expect(holder.properties[field]?.secret, `${token}.${field}`).toBe(true);
      }
    }
    const secrets = Object.entries(schema.types as Json).flatMap(([token, type]) =>
      Object.entries(type.properties ?? {})
        .filter(([, property]) => (property as Json).secret)
        .map(([name]) => `${token.split(":")[2]}.${name}`),
    );
    expect(new Set(secrets)).toEqual(new Set(SECRET_FIELDS.map(({ type, field }) => `${type}.${field}`)));
  });

  test("turns the spec's value sets into enums, with the default and the rules' words", () => {
    const backend = schema.types["exampledev:compute/v1alpha1:BackendConfig"];
    expect(backend.properties.protocol).toMatchObject({
      $ref: "#/types/exampledev:compute/v1alpha1:BackendConfigProtocol",
      default: "http1",
    });
    expect(schema.types["exampledev:compute/v1alpha1:BackendConfigProtocol"].enum).toEqual(
      ["http1", "http2", "tcp", "udp"].map((value) => ({ value })),
    );
    expect(backend.properties.port.description).toContain("1 to 65535");
  });

  test("declares every provider setting as config, the token secret", () => {
    for (const [name, setting] of Object.entries(SETTINGS)) {
      expect(schema.config.variables[name]).toMatchObject({ description: setting.description });
      expect(schema.provider.inputProperties[name].defaultInfo).toEqual({ environment: [setting.env] });
    }
    expect(schema.config.variables.token.secret).toBe(true);
    expect(schema.config.variables.requestTimeoutSeconds).toMatchObject({ type: "number", default: 30 });
  });

  test("declares every derived output of a kind (kind-outputs.ts)", () => {
    const service = {
      apiVersion: "compute.example.dev/v1alpha1",
      kind: "Service",
      metadata: { name: "api" },
      spec: { bundle: { digest: "sha256:0" } },
      status: {
        latestRevision: "api-1",
        liveRevision: "api-1",
        conditions: [{ type: "EgressReady", status: "True" }],
        lastBuild: {
          phase: "Succeeded",
          branch: "main",
          commit: "c0ffee",
          digest: `sha256:${"1".repeat(64)}`,
        },
        resolvedBundle: { tag: "v1", digest: `sha256:${"2".repeat(64)}`, resolvedAt: "2026-11-23T08:00:00Z" },
      },
    };
    for (const kind of KIND_NAMES) {
      const computed = Object.keys(KIND_OUTPUTS[kind](service as never));
      expect(computed.sort(), kind).toEqual(Object.keys(EXTRA_OUTPUTS[kind]).sort());
      for (const name of computed) {
        expect(schema.resources[NATIVE_TYPE_TOKENS[kind]].properties[name]).toBeDefined();
      }
    }
  });
});
