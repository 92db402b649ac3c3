import { describe, expect, it } from "vitest";
import { resourcePath, withQuery } from "../../../sdk/client/paths";

describe("resourcePath", () => {
  it.each([
    ["Proxy", "/apis/core.example.dev/v1alpha2/proxies"],
    ["Service", "/apis/compute.example.dev/v1alpha1/services"],
    ["ServiceRevision", "/apis/compute.example.dev/v1alpha1/servicerevisions"],
  ] as const)("puts the %s collection under its group, version and plural", (kind, path) => {
    expect(resourcePath(kind)).toBe(path);
    expect(resourcePath(kind, "api")).toBe(`${path}/api`);
  });

  it("encodes a name so it stays one path segment", () => {
    expect(resourcePath("Service", "a/b?c")).toBe("/apis/compute.example.dev/v1alpha1/services/a%2Fb%3Fc");
  });

  it("refuses an empty name instead of addressing the collection", () => {
    expect(() => resourcePath("Service", "")).toThrow(
      "Service name is empty: pass the object's metadata.name",
    );
  });
});

describe("withQuery", () => {
  it("adds the defined parameters, encoded", () => {
    expect(withQuery("/p", { labelSelector: "app=web,tier in (a,b)", limit: 5, continue: undefined })).toBe(
      "/p?labelSelector=app%3Dweb%2Ctier+in+%28a%2Cb%29&limit=5",
    );
  });

  it("leaves the path alone when no parameter is set", () => {
    expect(withQuery("/p", { fieldValidation: undefined })).toBe("/p");
  });
});
