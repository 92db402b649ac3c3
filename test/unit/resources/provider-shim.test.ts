import { describe, expect, it } from "vitest";
import { providerShim } from "../../../sdk/resources/provider-shim";

describe("the provider shim handed to Pulumi", () => {
  it("is one object per kind, so @pulumi/pulumi serializes it once per kind, not once per resource", () => {
    expect(providerShim("Service")).toBe(providerShim("Service"));
    expect(providerShim("Proxy")).toBe(providerShim("Proxy"));
    expect(providerShim("Proxy")).not.toBe(providerShim("Service"));
  });

  it("has the seven methods the dynamic-provider host calls", () => {
    expect(Object.keys(providerShim("ServiceRevision")).sort()).toEqual(
      ["check", "configure", "create", "delete", "diff", "read", "update"].sort(),
    );
  });
});
