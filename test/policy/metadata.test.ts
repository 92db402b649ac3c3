import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { POLICIES } from "../../policies/policies";
import { anchors } from "../helpers/markdown";

const REPO = path.resolve(__dirname, "../..");
const manifest = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8"));
const referenceAnchors = anchors(readFileSync(path.join(REPO, "docs/reference.md"), "utf8"));

describe("Pulumi's policy metadata on every policy", () => {
  it.each(POLICIES.map((policy) => [policy.name, policy] as const))("%s", (name, policy) => {
    expect(["low", "medium", "high", "critical"]).toContain(policy.severity);
    expect(policy.remediationSteps).toMatch(/^[A-Z].*\.$/s);
    expect(policy.tags?.length).toBeGreaterThan(1);
    const url = new URL(policy.url ?? "");
    const prefix = `${manifest.homepage}/blob/main/`;
    expect(url.href.startsWith(prefix), url.href).toBe(true);
    expect(url.href.slice(prefix.length).split("#")[0]).toBe("docs/reference.md");
    expect(url.hash).toBe(`#${name}`);
    expect(referenceAnchors.has(name), `docs/reference.md has a heading for ${name}`).toBe(true);
  });

  it("a rule's remediation steps are the fix its description gives, and its severity follows the rule's", () => {
    const drain = POLICIES.find((policy) => policy.name === "drain-minimum");
    expect(drain?.remediationSteps).toBe(
      "Raise minimumDrainTime to drainTimeout or more, or lower drainTimeout.",
    );
    expect(drain?.severity).toBe("high");
    expect(POLICIES.find((policy) => policy.name === "bundle-digest-pinned")?.severity).toBe("medium");
  });
});
