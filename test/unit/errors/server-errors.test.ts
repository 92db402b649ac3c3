import { describe, expect, it } from "vitest";
import {
  AlreadyExistsError,
  type ApiError,
  apiErrorFromResponse,
  BadRequestError,
  ConflictError,
  GoneError,
  InvalidError,
  NotFoundError,
  REASONS,
  type Reason,
} from "../../../sdk/errors";
import {
  alreadyExists,
  apiError,
  badRequest,
  conflict,
  invalid,
  notFound,
  type Resource,
} from "../../../sdk/errors/server-errors";
import { KINDS } from "../../../sdk/schema";

// The server throws the error the client decodes from its answer: one class per reason on both sides, so a
// caller (the controller in the server's process, a test of the store) matches either with `instanceof`.

/** The error a client builds from the answer the server sends for `error`, as JSON over the wire. */
function decoded(error: ApiError): ApiError {
  return apiErrorFromResponse(error.code, JSON.parse(JSON.stringify(error.status)));
}

const SECRETS: Resource = { kind: "Secret", group: "", plural: "secrets" };

describe("the server's errors", () => {
  const thrown = [
    [NotFoundError, notFound(KINDS.Proxy, "edge")],
    [AlreadyExistsError, alreadyExists(KINDS.Service, "web")],
    [ConflictError, conflict(KINDS.Service, "web")],
    [BadRequestError, badRequest("metadata.name is required")],
    [
      InvalidError,
      invalid(KINDS.Service, "web", [
        { reason: "FieldValueRequired", field: "spec.x", message: "spec.x: Required" },
      ]),
    ],
    [GoneError, apiError("Expired", "too old resource version: 1 (5)")],
  ] as const;

  it.each(thrown)("%o is what the client decodes from the answer", (type, error) => {
    expect(error).toBeInstanceOf(type);
    const client = decoded(error);
    expect(client.constructor).toBe(error.constructor);
    expect(client.message).toBe(error.message);
    expect(client.reason).toBe(error.reason);
    expect(client.code).toBe(error.code);
    expect(client.causes).toEqual(error.causes);
  });

  it("builds every reason's class from the reason table", () => {
    for (const [reason, { code, error }] of Object.entries(REASONS)) {
      const built = apiError(reason as Reason, "m");
      expect(built.constructor).toBe(error);
      expect(built.status).toMatchObject({ code, reason, message: "m", status: "Failure" });
    }
  });

  it("answers in kube-apiserver's words", () => {
    expect(notFound(KINDS.Proxy, "edge").status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'proxies.core.example.dev "edge" not found',
      reason: "NotFound",
      details: { name: "edge", group: "core.example.dev", kind: "proxies" },
      code: 404,
    });
    expect(invalid(KINDS.Service, undefined, [{ message: "metadata.name: Required" }]).status).toMatchObject({
      message: "Service.compute.example.dev is invalid: metadata.name: Required",
      details: { group: "compute.example.dev", kind: "Service" },
    });
  });

  it("names a core resource without a group, in the message and the details", () => {
    expect(notFound(SECRETS, "s").status).toMatchObject({
      message: 'secrets "s" not found',
      details: { name: "s", kind: "secrets" },
    });
    expect(notFound(SECRETS, "s").status.details).not.toHaveProperty("group");
  });

  it("tells a conflict from an existing name by class, as the controller does", () => {
    expect(alreadyExists(KINDS.Service, "web")).toBeInstanceOf(ConflictError);
    expect(conflict(KINDS.Service, "web")).not.toBeInstanceOf(AlreadyExistsError);
  });
});
