// The API's advisory `Warning` headers as the person running `pulumi up` sees them, through the real CLI: the
// native plugin (installed with `pulumi plugin install`) shows each on its resource, once; the dynamic provider
// cannot show them (docs/limits.md), so they are nowhere in the output.
import path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPlugin } from "../../scripts/native/plugin-install";
import { type Client, createClient, type ServiceInput } from "../../sdk/client";
import { NATIVE_TYPE_TOKENS } from "../../sdk/resources/type-tokens";
import { type RunningServer, startServer } from "../../server";
import { createTestStack, type TestStack } from "../helpers/pulumi";

const fixture = path.join(__dirname, "fixtures/warnings");
// A Service pinned to a digest: nothing is pulled, so no registry is needed.
const REPO = "127.0.0.1:1/team/warnings";
const DIGEST = `sha256:${"7a".repeat(32)}`;
const runtime = { compatibilityDate: "2026-01-01" };

/** How often `text` occurs in `haystack`. */
const occurrences = (haystack: string, text: string) => haystack.split(text).length - 1;

describe("the API's warnings in `pulumi up`", () => {
  let server: RunningServer;
  let client: Client;
  let t: TestStack;
  /** What the server warns about each fixture Service, asked with a dry run: the texts `up` must show (or not). */
  const expected = { native: "", dynamic: "" };

  /** The one warning the server gives for creating `spec` (dryRun=All: nothing is stored). */
  async function warningOf(name: string, spec: ServiceInput["spec"]): Promise<string> {
    const texts: string[] = [];
    await client.services.create(
      { metadata: { name }, spec },
      { dryRun: "All", onWarning: (warning) => texts.push(warning.text) },
    );
    expect(texts).toHaveLength(1);
    return texts[0] as string;
  }

  beforeAll(async () => {
    server = await startServer({ port: 0, storage: "memory", logLevel: "warn" });
    client = createClient({ baseUrl: server.url });
    const source = { oci: { repo: REPO, digest: DIGEST } };
    expected.native = await warningOf("warn-native", {
      revisionHistoryLimit: 1,
      source,
      template: { spec: { runtime } },
    });
    expected.dynamic = await warningOf("warn-dynamic", {
      source,
      template: { spec: { runtime, backend: { protocol: "http1", port: 8080 } } },
    });
    t = await createTestStack(fixture);
    installPlugin(t.env);
    await t.stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      repo: { value: REPO },
      digest: { value: DIGEST },
    });
  });

  afterAll(async () => {
    await t?.stack.destroy().catch(() => undefined);
    await t?.dispose();
    await client?.close();
    await server?.close();
  });

  it("shows the native plugin's warning on its resource once, and none from the dynamic provider", async () => {
    expect(expected.native).toMatch(/^spec\.revisionHistoryLimit: /);
    expect(expected.dynamic).toMatch(/backend\.port/);
    const printed: string[] = [];
    const events: EngineEvent[] = [];
    const up = await t.stack.up({
      onOutput: (line) => printed.push(line),
      onEvent: (event) => events.push(event),
    });
    expect(up.summary.result).toBe("succeeded");
    const output = printed.join("");
    console.log(`[warnings e2e] up printed:\n${output}`);

    // One engine diagnostic, a warning, on the native Service's URN.
    const nativeUrn = `urn:pulumi:e2e::warnings::${NATIVE_TYPE_TOKENS.Service}::native-lax`;
    const diagnostics = events.flatMap((event) => (event.diagnosticEvent ? [event.diagnosticEvent] : []));
    const nativeWarnings = diagnostics.filter((diagnostic) => diagnostic.message.includes(expected.native));
    expect(nativeWarnings).toHaveLength(1);
    expect(nativeWarnings[0]).toMatchObject({ severity: "warning", urn: nativeUrn });
    // The summary lists it once under the resource (the progress lines repeat a resource's last message).
    const summary = output.slice(output.indexOf("Diagnostics:"));
    expect(occurrences(summary, expected.native)).toBe(1);
    expect(summary).toMatch(
      new RegExp(
        `Service \\(native-lax\\):\\n\\s+warning: ${expected.native.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`,
      ),
    );

    // The dynamic provider's warnings reach no one: not the output, not the engine's events.
    expect(output).not.toContain(expected.dynamic);
    expect(diagnostics.some((diagnostic) => diagnostic.message.includes(expected.dynamic))).toBe(false);
    expect(await client.services.get("warn-dynamic")).toMatchObject({ spec: { revisionHistoryLimit: 10 } });
  });
});
