import { describe, expect, it } from "vitest";
import {
  AlreadyExistsError,
  ApiError,
  apiErrorFromResponse,
  ConflictError,
  NotFoundError,
  REASONS,
} from "../../../sdk/errors";
import { failureStatus, reasonForCode, reasonOfCode, successStatus } from "../../../sdk/errors/reasons";

describe("the reason table", () => {
  it("gives each reason its code and the class the client raises for it", () => {
    for (const [reason, { code, error }] of Object.entries(REASONS)) {
      const raised = apiErrorFromResponse(code, { kind: "Status", reason, message: "m", code });
      expect(raised.constructor).toBe(error);
      expect(raised).toBeInstanceOf(ApiError);
      expect(raised.reason).toBe(reason);
    }
  });

  it("names a code by its first reason (409: Conflict, not AlreadyExists)", () => {
    expect(reasonOfCode(409)).toBe("Conflict");
    expect(reasonOfCode(418)).toBeUndefined();
    expect(apiErrorFromResponse(409, undefined).constructor).toBe(ConflictError);
  });

  it("picks the class of the code when the stated reason belongs to another code", () => {
    const error = apiErrorFromResponse(404, { kind: "Status", reason: "AlreadyExists", message: "m" });
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).not.toBeInstanceOf(AlreadyExistsError);
  });

  it("gives a framework error with only a code the closest reason", () => {
    expect(reasonForCode(413)).toBe("RequestEntityTooLarge");
    expect(reasonForCode(418)).toBe("BadRequest");
    expect(reasonForCode(507)).toBe("InternalError");
  });
});

describe("Status bodies", () => {
  it("builds a failure as the server sends it, its code from the table", () => {
    expect(failureStatus("AlreadyExists", 'services "a" already exists', { name: "a" })).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'services "a" already exists',
      reason: "AlreadyExists",
      details: { name: "a" },
      code: 409,
    });
  });

  it("leaves empty details out of a failure, as Go's omitempty does on kube-apiserver", () => {
    for (const status of [
      failureStatus("BadRequest", "bad"),
      failureStatus("Expired", "too old", {}),
      failureStatus("Gone", "gone", { name: undefined }),
    ]) {
      expect(status).not.toHaveProperty("details");
      expect(JSON.parse(JSON.stringify(status))).not.toHaveProperty("details");
    }
    expect(failureStatus("NotFound", "missing", { name: "a" }).details).toEqual({ name: "a" });
  });

  it("builds a success without message nor reason", () => {
    expect(successStatus({ name: "a" })).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "a" },
      code: 200,
    });
  });

  it("reads back through the client what the server builds", () => {
    const status = failureStatus("NotFound", 'services "ghost" not found', {
      name: "ghost",
      kind: "services",
    });
    const error = apiErrorFromResponse(status.code, JSON.parse(JSON.stringify(status)), { kind: "Service" });
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('Service "ghost" was not found (404 NotFound): services "ghost" not found');
  });
});
