// The native plugin's CheckConfig: a provider key that names no setting is told on the provider as a warning
// (the engine shows it at preview), naming the setting it most likely meant; the engine's own keys are not.
import { describe, expect, it } from "vitest";
import { NativeProvider } from "../../provider/native/native-provider";

describe("the native plugin's CheckConfig", () => {
  const native = new NativeProvider();

  it("warns about a misspelt key, naming the setting, and never its value", () => {
    const { failures, warnings } = native.checkConfig({ baseURL: "http://127.0.0.1:9/secret-path" });
    expect(failures).toEqual([]);
    expect(warnings).toEqual([
      "exampledev:baseURL is not a setting of @exampledev/pulumi and is ignored: did you mean exampledev:baseUrl?",
    ]);
    expect(JSON.stringify(warnings)).not.toContain("secret-path");
  });

  it("says nothing of the settings and of the keys the engine adds", () => {
    const { warnings } = native.checkConfig({
      baseUrl: "http://127.0.0.1:8080",
      serverDryRun: "false",
      version: "0.1.0",
      __internal: "x",
    });
    expect(warnings).toEqual([]);
  });
});
