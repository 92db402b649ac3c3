// Settings mistakes a preview used to pass over in silence, through the real CLI: a misspelt provider key
// and no API address at all. The preview (offline, as a pull request's check without API access runs it)
// passes, but says both; `up` then fails as the preview said it would.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestStack, type TestStack } from "../helpers/pulumi";

const MISSPELT_VALUE = "http://127.0.0.1:9/misspelt";

/** How often `text` occurs in `haystack`. */
const occurrences = (haystack: string, text: string) => haystack.split(text).length - 1;

describe("settings a preview warns about", () => {
  let t: TestStack;

  beforeAll(async () => {
    t = await createTestStack(path.join(__dirname, "fixtures/proxy"), {
      env: { EXAMPLEDEV_BASE_URL: "", EXAMPLEDEV_KUBECONFIG: "" },
    });
    await t.stack.setAllConfig({
      apiKey: { value: "k", secret: true },
      "exampledev:baseURL": { value: MISSPELT_VALUE },
    });
  });

  afterAll(async () => {
    await t?.dispose();
  });

  it("preview: passes, names the misspelt key's setting and the missing address, once each", async () => {
    const { stdout } = await t.stack.preview({ color: "never" });
    const diagnostics = stdout.slice(stdout.indexOf("Diagnostics:"));
    const misspelt =
      "exampledev:baseURL is not a setting of @exampledev/pulumi and is ignored: did you mean exampledev:baseUrl?";
    expect(occurrences(diagnostics, misspelt)).toBe(1);
    expect(occurrences(diagnostics, "no API address configured: this preview asks nothing of the API")).toBe(
      1,
    );
    expect(stdout).not.toContain(MISSPELT_VALUE);
  });

  it("up: fails on the resource with the address's message, as the preview said", async () => {
    const failure = await t.stack.up({ color: "never" }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failure).toContain("no API address configured: set it with `pulumi config set exampledev:baseUrl");
    expect(failure).not.toContain(MISSPELT_VALUE);
  });
});
