import { describe, expect, it } from "vitest";
import { ApiError as ClientApiError } from "../../../sdk/errors";
import { failureStatus } from "../../../sdk/errors/reasons";
import { ApiError, badRequest, conflict, invalid, notFound } from "../../../server/errors";

// The server throws the client's ApiError (one class, built from the Status it sends): code, reason, causes
// and status read the same on both sides; only the message is the server's own words.

describe("the server's ApiError", () => {
  const thrown = [
    ["NotFound", notFound("Proxy", "edge")],
    ["Conflict", conflict("Service", "web")],
    ["BadRequest", badRequest("metadata.name is required")],
    [
      "Invalid",
      invalid("Service", "web", [
        { reason: "FieldValueRequired", field: "spec.x", message: "spec.x: Required" },
      ]),
    ],
  ] as const;

  it.each(thrown)("%s is the client's ApiError with the Status it answers", (reason, error) => {
    expect(error).toBeInstanceOf(ClientApiError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.name).toBe("ApiError");
    expect(error.reason).toBe(reason);
    expect(error.status).toEqual(failureStatus(reason, error.message, error.details));
    expect(error.code).toBe(error.status.code);
    expect(error.causes).toEqual(error.status.details?.causes ?? []);
  });

  it("keeps the Status message as its message", () => {
    expect(notFound("Proxy", "edge").message).toBe('proxies.core.example.dev "edge" not found');
    expect(new ApiError("Gone", "too old").status).toMatchObject({
      code: 410,
      reason: "Gone",
      message: "too old",
    });
  });
});
