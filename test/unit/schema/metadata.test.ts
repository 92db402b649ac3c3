import { describe, expect, it } from "vitest";
import { isObjectName, metadataProblems, UNKNOWN } from "../../../sdk/schema";

describe("object metadata syntax", () => {
  it.each(["edge", "api-v2", "team.web", "a", "0", "a".repeat(253)])("accepts the name %s", (name) => {
    expect(isObjectName(name)).toBe(true);
    expect(metadataProblems({ name })).toEqual([]);
  });

  it.each(["Edge", "my_api", "-api", "api-", "web..api", "api.-v2", "", "a".repeat(254)])(
    "refuses the name %j with a message on metadata.name",
    (name) => {
      expect(isObjectName(name)).toBe(false);
      expect(metadataProblems({ name })).toEqual([expect.stringMatching(/^metadata\.name: must be /)]);
    },
  );

  it("checks label keys and values, and annotation keys but not their values", () => {
    expect(
      metadataProblems({
        labels: { "example.dev/team": "payments", tier: "" },
        annotations: { "example.dev/note": "any text, even with spaces" },
      }),
    ).toEqual([]);
    expect(metadataProblems({ labels: { "bad key": "x" } })).toEqual([
      expect.stringMatching(/^metadata\.labels: key "bad key" must be/),
    ]);
    expect(metadataProblems({ labels: { team: "not a value" } })).toEqual([
      expect.stringMatching(/^metadata\.labels: value "not a value" must be/),
    ]);
    expect(metadataProblems({ annotations: { "Bad_Prefix/x": "y" } })).toEqual([
      expect.stringMatching(/^metadata\.annotations: the prefix of key "Bad_Prefix\/x"/),
    ]);
  });

  it("leaves values unknown during preview for later", () => {
    expect(metadataProblems({ name: UNKNOWN, labels: { team: UNKNOWN }, annotations: UNKNOWN })).toEqual([]);
  });
});
