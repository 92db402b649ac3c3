import { describe, expect, it } from "vitest";
import { WaitFailedError, WaitTimeoutError } from "../../../sdk/client";

describe("the wait errors", () => {
  it("makes a timeout a failed wait with reason Timeout, keeping the object last seen", () => {
    const lastSeen = { metadata: { generation: 2, resourceVersion: "9" } };
    const error = new WaitTimeoutError('Service "api"', 100, lastSeen);
    expect(error).toBeInstanceOf(WaitFailedError);
    expect(error).toMatchObject({ name: "WaitTimeoutError", reason: "Timeout", timeoutMs: 100, lastSeen });
    expect(error.message).toBe(
      'Service "api" did not reach the awaited state within 100 ms (last seen at generation 2, resourceVersion 9)',
    );
  });

  it("takes a message of the waiter's own", () => {
    const error = new WaitTimeoutError("edge", 1000, undefined, "timed out after 1s waiting for deletion");
    expect(error.message).toBe("timed out after 1s waiting for deletion");
  });
});
