import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, revisionName } from "../../controller/naming";

const DIGEST = `sha256:${"a".repeat(64)}`;

describe("canonicalJson", () => {
  it("sorts keys at every level and leaves out undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: true, e: null }], c: undefined } })).toBe(
      '{"a":{"d":[2,{"e":null,"f":true}]},"b":1}',
    );
  });

  it("gives the same text for objects that differ only in key order", () => {
    expect(canonicalJson({ x: 1, y: { p: "q", r: "s" } })).toBe(
      canonicalJson({ y: { r: "s", p: "q" }, x: 1 }),
    );
  });
});

describe("revisionName", () => {
  const template = { spec: { runtime: { compatibilityDate: "2024-09-01", timeout: "30s" } } };

  it("is the Service name and the first 10 hex of SHA-256 over the canonical template and bundle", () => {
    const canonical = `{"bundle":{"digest":"${DIGEST}","repo":"127.0.0.1:5000/team/app"},"template":{"spec":{"runtime":{"compatibilityDate":"2024-09-01","timeout":"30s"}}}}`;
    const hash = createHash("sha256").update(canonical).digest("hex").slice(0, 10);
    expect(
      revisionName("web", { template, bundle: { repo: "127.0.0.1:5000/team/app", digest: DIGEST } }),
    ).toBe(`web-${hash}`);
  });

  it("changes with the template, the repository and the digest, and ignores anything else in the bundle", () => {
    const bundle = { repo: "registry.example.dev/app", digest: DIGEST };
    const name = revisionName("web", { template, bundle });
    const withCredentials = { ...bundle, credentials: { username: "u" }, tag: "v1" };
    expect(revisionName("web", { template, bundle: withCredentials })).toBe(name);
    expect(revisionName("web", { template: { spec: {} }, bundle })).not.toBe(name);
    expect(
      revisionName("web", { template, bundle: { ...bundle, repo: "registry.example.dev/other" } }),
    ).not.toBe(name);
    expect(
      revisionName("web", { template, bundle: { ...bundle, digest: `sha256:${"b".repeat(64)}` } }),
    ).not.toBe(name);
  });
});
