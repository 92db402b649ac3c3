import { describe, expect, test } from "vitest";
import {
  isPlaceholder,
  moveWriteOnlyPasswords,
  PLACEHOLDERS,
  redactSecrets,
  SECRET_FIELDS,
  secretPaths,
  UNKNOWN,
} from "../../../sdk/schema";
import { cloudProxy, DIGEST, gitService, ociService, revision, withValue } from "./examples";

const credentials = {
  username: "ci",
  password: "pw",
  passwordData: "raw",
  accessToken: "at",
  refreshToken: "rt",
};

describe("SECRET_FIELDS", () => {
  test("lists the secret fields of the API with their placeholders", () => {
    expect(SECRET_FIELDS.map(({ type, field, placeholder }) => `${type}.${field}=${placeholder}`)).toEqual([
      "APIKey.key=<API_KEY>",
      "APIKey.keyData=<API_KEY>",
      "OCICredentials.accessToken=<ACCESS_TOKEN>",
      "OCICredentials.password=undefined",
      "OCICredentials.passwordData=<PASSWORD_DATA>",
      "OCICredentials.refreshToken=<REFRESH_TOKEN>",
    ]);
  });
});

describe("secretPaths", () => {
  test("finds every API key of a proxy", () => {
    expect(secretPaths("Proxy", cloudProxy)).toEqual([
      ["telemetry", "thirdPartySinks", "vendorAlphaLogs", "key"],
      ["telemetry", "thirdPartySinks", "vendorAlphaTraces", "keyData"],
      ["telemetry", "thirdPartySinks", "vendorBetaLogs", "key"],
      ["telemetry", "thirdPartySinks", "vendorBetaTraces", "key"],
    ]);
  });

  test("finds credentials wherever a BundleRef appears", () => {
    const service = withValue(gitService, ["source", "git", "build", "output", "credentials"], {
      password: "pw",
    });
    expect(secretPaths("Service", service)).toEqual([
      ["source", "git", "build", "output", "credentials", "password"],
    ]);
    expect(secretPaths("Service", ociService)).toEqual([
      ["source", "oci", "credentials", "accessToken"],
      ["source", "oci", "credentials", "passwordData"],
      ["source", "oci", "credentials", "refreshToken"],
    ]);
    expect(
      secretPaths("ServiceRevision", withValue(revision, ["bundle", "credentials"], credentials)),
    ).toEqual(
      ["accessToken", "password", "passwordData", "refreshToken"].map((field) => [
        "bundle",
        "credentials",
        field,
      ]),
    );
  });

  test("finds nothing where there are no secrets, or no objects", () => {
    expect(secretPaths("ServiceRevision", revision)).toEqual([]);
    expect(secretPaths("Proxy", "not a spec")).toEqual([]);
  });
});

describe("redactSecrets", () => {
  test("replaces secrets with placeholders and drops the write-only password", () => {
    const spec = withValue(ociService, ["source", "oci", "credentials"], credentials);
    const redacted = redactSecrets("Service", spec);
    expect(redacted.source.oci?.credentials).toEqual({
      username: "ci",
      passwordData: PLACEHOLDERS.passwordData,
      accessToken: PLACEHOLDERS.accessToken,
      refreshToken: PLACEHOLDERS.refreshToken,
    });
    expect(spec.source.oci?.credentials?.password).toBe("pw");
  });

  test("leaves no secret value anywhere in a redacted proxy", () => {
    const text = JSON.stringify(redactSecrets("Proxy", cloudProxy));
    for (const secret of ["alpha-logs-key", "YWxwaGEtdHJhY2Vz", "beta-logs-key", "beta-traces-key"]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain(PLACEHOLDERS.apiKey);
  });

  test("keeps everything that is not a secret, and unknown values", () => {
    expect(redactSecrets("ServiceRevision", revision)).toEqual(revision);
    const unknownKey = withValue(
      cloudProxy,
      ["telemetry", "thirdPartySinks", "vendorAlphaLogs", "key"],
      UNKNOWN,
    );
    expect(redactSecrets("Proxy", unknownKey).telemetry?.thirdPartySinks?.vendorAlphaLogs?.key).toBe(UNKNOWN);
  });
});

describe("moveWriteOnlyPasswords", () => {
  test("moves password to passwordData", () => {
    const spec = {
      bundle: { repo: "r.example.dev/a", digest: DIGEST, credentials: { username: "u", password: "pw" } },
    };
    expect(moveWriteOnlyPasswords("ServiceRevision", spec)).toEqual({
      bundle: { repo: "r.example.dev/a", digest: DIGEST, credentials: { username: "u", passwordData: "pw" } },
    });
  });

  test("keeps passwordData when both are set (it takes precedence) and drops password", () => {
    const spec = withValue(ociService, ["source", "oci", "credentials"], {
      password: "pw",
      passwordData: "raw",
    });
    expect(moveWriteOnlyPasswords("Service", spec).source.oci?.credentials).toEqual({ passwordData: "raw" });
  });

  test("changes nothing without a password", () => {
    expect(moveWriteOnlyPasswords("Service", ociService)).toEqual(ociService);
  });
});

describe("isPlaceholder", () => {
  test.each(Object.values(PLACEHOLDERS))("recognises %s", (placeholder) => {
    expect(isPlaceholder(placeholder)).toBe(true);
  });

  test.each(["<api_key>", "secret", "", undefined, null, 1, UNKNOWN])("rejects %j", (value) => {
    expect(isPlaceholder(value)).toBe(false);
  });
});
