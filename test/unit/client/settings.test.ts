import { describe, expect, test } from "vitest";
import { baseUrlProblem, DEFAULT_TIMEOUT_MS, SETTINGS } from "../../../sdk/client/settings";

describe("the provider's settings data", () => {
  test.each(Object.entries(SETTINGS))(
    "%s: config key exampledev:<name>, variable EXAMPLEDEV_<NAME>",
    (name, setting) => {
      expect(setting.config).toBe(`exampledev:${name}`);
      expect(setting.env).toBe(
        `EXAMPLEDEV_${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`,
      );
      expect(setting.description).toMatch(/^\S.*\.$/);
    },
  );

  test("the environment wins only for the API's address and token (and the kubeconfig that gives them), the settings a destroy may need to change", () => {
    const environmentFirst = Object.entries(SETTINGS)
      .filter(([, setting]) => setting.precedence === "environment")
      .map(([name]) => name);
    expect(environmentFirst).toEqual(["baseUrl", "token", "kubeconfig", "context"]);
  });

  test("only the token is secret", () => {
    expect(
      Object.entries(SETTINGS)
        .filter(([, setting]) => setting.secret)
        .map(([name]) => name),
    ).toEqual(["token"]);
  });

  test("the client's default timeout is the provider's default request timeout", () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(SETTINGS.requestTimeoutSeconds.default * 1000);
  });
});

describe("baseUrlProblem", () => {
  test.each(["http://127.0.0.1:8080", "https://api.example.dev", "https://api.example.dev/prefix/"])(
    "accepts %s",
    (url) => {
      expect(baseUrlProblem(url, "token")).toBeUndefined();
    },
  );

  test("names the token setting the caller has, and never repeats the URL", () => {
    const problem = baseUrlProblem("https://deployer:s3cret@api.example.dev", "exampledev:token");
    expect(problem).toBe("must not contain credentials: pass the API token as exampledev:token");
    expect(problem).not.toContain("s3cret");
  });
});
