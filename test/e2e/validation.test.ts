import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../server";
import { createTestStack, type TestStack } from "../helpers/pulumi";

const API_KEY = "validation-api-key-4411";

describe("validation errors through the real Pulumi CLI", () => {
  let server: RunningServer;
  let t: TestStack;
  const printed: string[] = [];
  const onOutput = (line: string) => printed.push(line);

  beforeAll(async () => {
    server = await startServer({ port: 0, storage: "memory", logLevel: "warn" });
    t = await createTestStack(path.join(__dirname, "fixtures/proxy"));
    await t.stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      apiKey: { value: API_KEY, secret: true },
    });
  });
  afterAll(async () => {
    await t?.dispose();
    await server?.close();
  });

  it("fails preview on a schema violation, naming the field path and the fix", async () => {
    await t.stack.setConfig("drainTimeout", { value: "90s" });
    const failure = await t.stack.preview({ onOutput }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).toContain("spec.shutdown.minimumDrainTime");
    expect(String(failure)).toContain("90s");
    await t.stack.removeConfig("drainTimeout");
  });

  it("fails preview on an object name the API would refuse", async () => {
    await t.stack.setConfig("name", { value: "Not_A_DNS_Name" });
    const failure = await t.stack.preview({ onOutput }).catch((error: Error) => error);
    expect(String(failure)).toContain("metadata.name: must be a DNS-1123 subdomain");
    await t.stack.removeConfig("name");
  });

  it("fails up with the server's causes when the API rejects the object", async () => {
    // With spec errors left to the policy pack, nothing stops the object before the API: its 422 must reach
    // the user intact.
    await t.stack.setAllConfig({
      "exampledev:deferValidationToPolicies": { value: "true" },
      drainTimeout: { value: "90s" },
    });
    const failure = await t.stack.up({ onOutput }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).toMatch(/Proxy "edge" was rejected \(422 Invalid\)/);
    expect(String(failure)).toContain("spec.shutdown.minimumDrainTime");
  });

  it("never prints the secret in those errors", () => {
    expect(printed.join("\n")).not.toContain(API_KEY);
  });
});
