import { describe, expect, it } from "vitest";
import { joinSecrets, PLACEHOLDERS, sameValues, splitSecrets } from "../../../sdk/schema";

const KEY = "spec.telemetry.thirdPartySinks.vendorAlphaLogs.key";
const KEY_DATA = "spec.telemetry.thirdPartySinks.vendorBetaTraces.keyData";
const sinks = (alpha: string, beta: string) => ({
  telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: alpha }, vendorBetaTraces: { keyData: beta } } },
});

describe("secret values split from a spec and joined back", () => {
  it("replaces each value by its placeholder and keys it by its path", () => {
    const { spec, values } = splitSecrets("Proxy", sinks("alpha", "YmV0YQ=="), {});
    expect(spec).toEqual(sinks(PLACEHOLDERS.apiKey, PLACEHOLDERS.apiKey));
    expect(values).toEqual({ [KEY]: "alpha", [KEY_DATA]: "YmV0YQ==" });
    expect(joinSecrets("Proxy", spec, values)).toEqual(sinks("alpha", "YmV0YQ=="));
  });

  it("keeps the previous value where the placeholder was written back, and drops a removed field's", () => {
    const previous = { [KEY]: "alpha", [KEY_DATA]: "YmV0YQ==", "spec.gone.key": "old" };
    const { values } = splitSecrets("Proxy", sinks(PLACEHOLDERS.apiKey, "bmV3"), previous);
    expect(values).toEqual({ [KEY]: "alpha", [KEY_DATA]: "bmV3" });
    expect(sameValues(values, previous)).toBe(false);
    const unchanged = splitSecrets("Proxy", sinks(PLACEHOLDERS.apiKey, PLACEHOLDERS.apiKey), values);
    expect(sameValues(unchanged.values, values)).toBe(true);
  });

  it("leaves a placeholder with no value behind it as it is", () => {
    const { spec, values } = splitSecrets("Proxy", sinks(PLACEHOLDERS.apiKey, "YmV0YQ=="), {});
    expect(values).toEqual({ [KEY_DATA]: "YmV0YQ==" });
    expect(joinSecrets("Proxy", spec, values)).toEqual(sinks(PLACEHOLDERS.apiKey, "YmV0YQ=="));
  });
});
