import { describe, expect, it } from "vitest";
import {
  AlreadyExistsError,
  ApiError,
  apiErrorFromResponse,
  BadGatewayError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  GatewayTimeoutError,
  GoneError,
  InternalError,
  InvalidError,
  MethodNotAllowedError,
  NotFoundError,
  RequestEntityTooLargeError,
  ServiceUnavailableError,
  TimeoutError,
  TooManyRequestsError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from "../../../sdk/errors";

const statusBody = (code: number, reason: string, message: string, details?: object) => ({
  kind: "Status",
  apiVersion: "v1",
  status: "Failure",
  code,
  reason,
  message,
  ...(details && { details }),
});

describe("apiErrorFromResponse picks the class of the status", () => {
  it.each([
    [400, "BadRequest", BadRequestError],
    [401, "Unauthorized", UnauthorizedError],
    [403, "Forbidden", ForbiddenError],
    [404, "NotFound", NotFoundError],
    [405, "MethodNotAllowed", MethodNotAllowedError],
    [409, "Conflict", ConflictError],
    [410, "Gone", GoneError],
    [413, "RequestEntityTooLarge", RequestEntityTooLargeError],
    [415, "UnsupportedMediaType", UnsupportedMediaTypeError],
    [422, "Invalid", InvalidError],
    [429, "TooManyRequests", TooManyRequestsError],
    [500, "InternalError", InternalError],
    [502, "BadGateway", BadGatewayError],
    [503, "ServiceUnavailable", ServiceUnavailableError],
    [504, "Timeout", GatewayTimeoutError],
  ])("%i %s", (code, reason, type) => {
    const error = apiErrorFromResponse(code, statusBody(code, reason, "m"));
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code, reason, name: type.name });
  });

  it("tells AlreadyExists from Conflict among 409s", () => {
    const exists = apiErrorFromResponse(
      409,
      statusBody(409, "AlreadyExists", 'services "api" already exists'),
    );
    const stale = apiErrorFromResponse(409, statusBody(409, "Conflict", "the object has been modified"));
    expect(exists).toBeInstanceOf(AlreadyExistsError);
    expect(exists).toBeInstanceOf(ConflictError);
    expect(stale).toBeInstanceOf(ConflictError);
    expect(stale).not.toBeInstanceOf(AlreadyExistsError);
  });

  it("uses the base class for a status without its own", () => {
    const error = apiErrorFromResponse(418, statusBody(418, "Teapot", "short and stout"));
    expect(error.constructor).toBe(ApiError);
    expect(error.message).toBe("Request failed (418 Teapot): short and stout");
  });

  it("gives a body that is not a Status the reason of its HTTP status", () => {
    const error = apiErrorFromResponse(503, undefined, { kind: "Service", name: "api" });
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      code: 503,
      reason: "ServiceUnavailable",
      message: "",
    });
    expect(error.message).toBe('Service "api" failed: the server is unavailable (503 ServiceUnavailable)');
  });
});

describe("error messages", () => {
  const invalid = statusBody(422, "Invalid", 'Service.compute.example.dev "api" is invalid: ...', {
    name: "api",
    group: "compute.example.dev",
    kind: "Service",
    causes: [
      {
        reason: "FieldValueInvalid",
        field: "spec.shutdown.minimumDrainTime",
        message: "must not be less than drainTimeout (30s)",
      },
      {
        reason: "FieldValueRequired",
        field: "spec.template.spec.runtime.compatibilityDate",
        message: "Required",
      },
    ],
  });

  it("name the kind, the object, the status and each cause with its field path", () => {
    const error = apiErrorFromResponse(422, invalid, { kind: "Service", name: "api" });
    expect(error.message).toBe(
      'Service "api" was rejected (422 Invalid): spec.shutdown.minimumDrainTime: must not be less than drainTimeout (30s); spec.template.spec.runtime.compatibilityDate: Required',
    );
    expect(error.causes.map((cause) => cause.field)).toEqual([
      "spec.shutdown.minimumDrainTime",
      "spec.template.spec.runtime.compatibilityDate",
    ]);
  });

  it("state a field path once when the cause's message already starts with it", () => {
    const status = {
      ...invalid,
      details: { causes: [{ field: "spec.env[1].name", message: 'spec.env[1].name: "A" is already used' }] },
    };
    expect(apiErrorFromResponse(422, status, { kind: "Service", name: "api" }).message).toBe(
      'Service "api" was rejected (422 Invalid): spec.env[1].name: "A" is already used',
    );
  });

  it("take the kind and name from the Status when the caller does not give them", () => {
    expect(apiErrorFromResponse(422, invalid).message).toMatch(
      /^Service "api" was rejected \(422 Invalid\): /,
    );
  });

  it("quote the server's message when there are no causes", () => {
    const error = apiErrorFromResponse(
      409,
      statusBody(
        409,
        "Conflict",
        "the object has been modified; please apply your changes to the latest version",
      ),
      { kind: "Proxy", name: "edge" },
    );
    expect(error.message).toBe(
      'Proxy "edge" conflicts with the stored object (409 Conflict): the object has been modified; please apply your changes to the latest version',
    );
  });

  it("leave out a server message that only repeats the reason", () => {
    const error = apiErrorFromResponse(401, statusBody(401, "Unauthorized", "Unauthorized"), {
      kind: "Proxy",
    });
    expect(error.message).toBe(
      "Proxy request was refused: the API token is missing or invalid (401 Unauthorized)",
    );
  });

  it("say what a collection request was about when there is no object name", () => {
    const error = apiErrorFromResponse(410, statusBody(410, "Expired", "continue token too old"), {
      kind: "ServiceRevision",
    });
    expect(error.message).toBe("ServiceRevision request has expired (410 Expired): continue token too old");
  });
});

describe("no secret leaves through an error", () => {
  const token = "tok-9f8e7d6c5b4a";
  const apiKey = "sk-live-0123456789";

  it("never quotes a body that is not a Status (a gateway page may echo the request)", () => {
    const page = `<html><body>Bad gateway. Request headers: Authorization: Bearer ${token}</body></html>`;
    const error = apiErrorFromResponse(502, page, { kind: "Service", name: "api" });
    expect(error.message).not.toContain(token);
    expect(JSON.stringify(error.status)).not.toContain(token);
  });

  it("drops what a Status body carries beyond the documented fields", () => {
    const body = { ...statusBody(400, "BadRequest", "bad"), request: { headers: { authorization: token } } };
    const error = apiErrorFromResponse(400, body);
    expect(JSON.stringify(error.status)).not.toContain(token);
    expect(Object.keys(error.status).sort()).toEqual([
      "apiVersion",
      "code",
      "kind",
      "message",
      "reason",
      "status",
    ]);
  });

  it("replaces every redacted value the server echoed, in the message and in the Status", () => {
    const body = statusBody(422, "Invalid", `key ${apiKey} rejected for token ${token}`, {
      causes: [
        {
          field: "spec.telemetry.thirdPartySinks.vendorAlphaLogs.key",
          message: `Invalid value: "${apiKey}": must be a vendor key`,
        },
      ],
    });
    const error = apiErrorFromResponse(422, body, { kind: "Proxy", name: "edge", redact: [token, apiKey] });
    for (const text of [error.message, JSON.stringify(error.status)]) {
      expect(text).not.toContain(apiKey);
      expect(text).not.toContain(token);
    }
    expect(error.message).toBe(
      'Proxy "edge" was rejected (422 Invalid): spec.telemetry.thirdPartySinks.vendorAlphaLogs.key: Invalid value: "<redacted>": must be a vendor key',
    );
  });
});

describe("transport errors", () => {
  const init = { method: "GET", url: "http://127.0.0.1:1/apis/x", mayHaveReachedServer: false, attempts: 4 };

  it("say the request, the failure and how many attempts were made", () => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    const error = new ConnectionError("ECONNREFUSED", { ...init, cause });
    expect(error.message).toBe(
      "GET http://127.0.0.1:1/apis/x failed: connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED) (gave up after 4 attempts)",
    );
    expect(error.cause).toBe(cause);
  });

  it("give the deadline of a timeout", () => {
    const error = new TimeoutError(250, { ...init, attempts: 1, mayHaveReachedServer: true });
    expect(error.message).toBe("GET http://127.0.0.1:1/apis/x failed: no answer within 250 ms");
    expect(error.mayHaveReachedServer).toBe(true);
  });
});
