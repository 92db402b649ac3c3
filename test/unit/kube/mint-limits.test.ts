import { describe, expect, it } from "vitest";
import type { RawClient } from "../../../sdk/client/raw";
import { SecretKeeper } from "../../../webhook/secrets";

// What a review may mint is bounded: a Secret's size, and how many are minted a second (a token bucket).

const client = {} as RawClient;

describe("the webhook's mint limits", () => {
  it("refuses values larger than a Secret holds with 413", () => {
    const keeper = new SecretKeeper(client, { maxSecretBytes: 100, perSecond: 1, burst: 1 });
    expect(keeper.mintRefusal({ "spec.key": "x".repeat(101) })).toMatchObject({ code: 413 });
    expect(keeper.mintRefusal({ "spec.key": "x".repeat(10) })).toBeUndefined();
  });

  it("allows a burst, then perSecond a second, and refuses beyond with 429 and a retry", () => {
    let now = 0;
    const keeper = new SecretKeeper(client, { maxSecretBytes: 1_000, perSecond: 2, burst: 3 }, () => now);
    for (let i = 0; i < 3; i++) expect(keeper.mintRefusal({ k: "v" })).toBeUndefined();
    expect(keeper.mintRefusal({ k: "v" })).toMatchObject({ code: 429, details: { retryAfterSeconds: 1 } });
    now += 500; // one token back
    expect(keeper.mintRefusal({ k: "v" })).toBeUndefined();
    expect(keeper.mintRefusal({ k: "v" })).toMatchObject({ code: 429 });
    now += 60_000; // back to the burst, not beyond
    for (let i = 0; i < 3; i++) expect(keeper.mintRefusal({ k: "v" })).toBeUndefined();
    expect(keeper.mintRefusal({ k: "v" })).toMatchObject({ code: 429 });
  });
});
