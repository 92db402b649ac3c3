import { describe, expect, it } from "vitest";
import { apiErrorFromResponse } from "../../../sdk/errors";
import { REDACTED, redact, redactValues } from "../../../sdk/errors/redact";

const SECRET = 's3cr/t+val ue"x';

describe("redactValues", () => {
  it.each([
    ["as is", SECRET],
    ["URL-encoded", encodeURIComponent(SECRET)],
    ["form-encoded", new URLSearchParams({ s: SECRET }).toString().slice(2)],
    ["JSON-encoded", JSON.stringify(SECRET).slice(1, -1)],
    ["JSON-encoded with escaped slashes", JSON.stringify(SECRET).slice(1, -1).replaceAll("/", "\\/")],
  ])("replaces a known secret %s", (_, echoed) => {
    expect(redactValues(`server said: ${echoed}!`, [SECRET])).toBe(`server said: ${REDACTED}!`);
  });

  it("replaces a secret that contains another one whole", () => {
    expect(redactValues("token abcdef", ["abc", "abcdef"])).toBe(`token ${REDACTED}`);
  });

  it("leaves a message without secrets, and credential-shaped text, as it is", () => {
    const advice = "Unauthorized: send the API token as 'Authorization: Bearer <token>'";
    expect(redactValues(advice, ["", "unrelated"])).toBe(advice);
  });
});

describe("redact (for messages quoting a third party)", () => {
  it("also replaces credentials by their shape", () => {
    expect(redact("echo: Authorization: Bearer abc.def", [])).toBe(`echo: Authorization: ${REDACTED}`);
    expect(redact("refresh_token=xyz&scope=pull", [])).toBe(`refresh_token=${REDACTED}&scope=pull`);
    expect(redact('{"token": "xyz"}', [])).toBe(`{"token": "${REDACTED}"}`);
  });
});

describe("the client's errors", () => {
  it("never repeat a redacted value, also when the server echoed it encoded", () => {
    const body = {
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      code: 422,
      reason: "Invalid",
      message: `bad value ${encodeURIComponent(SECRET)}`,
      details: { causes: [{ field: "spec.password", message: `spec.password: ${SECRET} is too short` }] },
    };
    const error = apiErrorFromResponse(422, body, { kind: "Service", name: "api", redact: [SECRET] });
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain(encodeURIComponent(SECRET));
    expect(error.status.message).toBe(`bad value ${REDACTED}`);
  });
});
