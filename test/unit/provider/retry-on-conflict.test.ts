import { describe, expect, it } from "vitest";
import { CONFLICT_ATTEMPTS, retryOnConflict } from "../../../provider/write/retry-on-conflict";
import { apiErrorFromResponse } from "../../../sdk/errors";

const conflict = () => apiErrorFromResponse(409, { kind: "Status", reason: "Conflict", code: 409 });

/** A write that fails with the given errors, one per try, then answers its try's number. */
function failingWith(...errors: Error[]) {
  let tries = 0;
  const write = async () => {
    tries++;
    const error = errors[tries - 1];
    if (error !== undefined) throw error;
    return tries;
  };
  return { write, tries: () => tries };
}

describe("retryOnConflict", () => {
  it("tries again after a 409 Conflict and returns the first success", async () => {
    const { write, tries } = failingWith(conflict(), conflict());
    await expect(retryOnConflict(write)).resolves.toBe(3);
    expect(tries()).toBe(3);
  });

  it(`gives up after ${CONFLICT_ATTEMPTS} tries that all conflict, with the last conflict`, async () => {
    const last = conflict();
    const { write, tries } = failingWith(...Array.from({ length: CONFLICT_ATTEMPTS - 1 }, conflict), last);
    await expect(retryOnConflict(write)).rejects.toBe(last);
    expect(tries()).toBe(CONFLICT_ATTEMPTS);
  });

  it("never repeats a write that failed otherwise", async () => {
    const notFound = apiErrorFromResponse(404, { kind: "Status", reason: "NotFound", code: 404 });
    for (const error of [notFound, new Error("the object is not ours")]) {
      const { write, tries } = failingWith(error);
      await expect(retryOnConflict(write)).rejects.toBe(error);
      expect(tries()).toBe(1);
    }
  });

  it("takes the number of tries", async () => {
    const { write, tries } = failingWith(conflict(), conflict());
    await expect(retryOnConflict(write, 2)).rejects.toThrow();
    expect(tries()).toBe(2);
  });
});
