import { describe, expect, it } from "vitest";
import { isSameSpec } from "../../../sdk/client/own-create";
import { applyDefaults, moveWriteOnlyPasswords, redactSecrets } from "../../../sdk/schema";

const sent = {
  source: {
    oci: {
      repo: "registry.example.dev/team/app",
      tag: "v1",
      credentials: { username: "ci", password: "hunter2-long" },
    },
  },
  template: { spec: { runtime: { compatibilityDate: "2026-01-01" } } },
};

/** What the server stores and answers with: defaults applied, password moved, secrets redacted. */
const storedFrom = (spec: typeof sent) =>
  redactSecrets("Service", applyDefaults("Service", moveWriteOnlyPasswords("Service", spec)));

describe("isSameSpec", () => {
  it("recognises the spec we sent in the stored one, defaults and redacted secrets included", () => {
    expect(isSameSpec("Service", sent, storedFrom(sent))).toBe(true);
  });

  it("tells a different spec apart", () => {
    const other = { ...sent, template: { spec: { runtime: { compatibilityDate: "2025-06-01" } } } };
    expect(isSameSpec("Service", sent, storedFrom(other))).toBe(false);
  });

  it("tells apart a stored object that has a secret where we sent none", () => {
    const withoutCredentials = {
      ...sent,
      source: { oci: { repo: "registry.example.dev/team/app", tag: "v1" } },
    };
    expect(isSameSpec("Service", withoutCredentials, storedFrom(sent))).toBe(false);
  });

  it("treats a default written out and a default left out as equal", () => {
    const explicit = { ...sent, revisionHistoryLimit: 10 };
    expect(isSameSpec("Service", sent, explicit)).toBe(true);
  });
});
