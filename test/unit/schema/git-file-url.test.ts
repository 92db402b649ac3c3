// The `git-file-url` rule: a file:// `spec.source.git.url` that names a host (git would ignore it and read
// the local path) or no path is an error at the field, in the schema's words, so `check`, the policy pack,
// the server and the webhook refuse it alike. Every other spelling of a repository passes.
import { describe, expect, test } from "vitest";
import { RULES, UNKNOWN, validateSpec } from "../../../sdk/schema";
import { gitService, withValue } from "./examples";

const URL_PATH = ["source", "git", "url"] as const;

const violationsFor = (url: unknown) =>
  validateSpec("Service", withValue(gitService, URL_PATH, url)).filter(({ rule }) => rule === "git-file-url");

describe("git-file-url", () => {
  test("is declared as an error on spec.source.git.url, with the fix in its description", () => {
    const rule = RULES.find(({ id }) => id === "git-file-url");
    expect(rule).toMatchObject({
      kinds: ["Service"],
      path: "spec.source.git.url",
      severity: "error",
    });
    expect(rule?.description).toContain('"file:///srv/app.git"');
  });

  test("a file:// URL naming a host: the field, and what to write instead", () => {
    expect(violationsFor("file://127.0.0.1/srv/git/app.git")).toEqual([
      {
        rule: "git-file-url",
        path: "spec.source.git.url",
        severity: "error",
        reason: "FieldValueInvalid",
        message:
          'spec.source.git.url: "file://127.0.0.1/srv/git/app.git" names the host "127.0.0.1", but a file:// URL reads this machine\'s disk: write file:///srv/git/app.git or file://localhost/srv/git/app.git, or an http(s):// or git:// URL to reach another host',
      },
    ]);
  });

  test("a file:// URL whose path is no file path (an encoded /)", () => {
    const [violation] = violationsFor("file:///srv/git%2Fapp");
    expect(violation?.message).toMatch(
      /^spec\.source\.git\.url: "file:\/\/\/srv\/git%2Fapp" is not a file path: /,
    );
  });

  test.each([
    "file:///srv/git/app.git",
    "file://localhost/srv/git/app.git",
    "/srv/git/app.git",
    "https://git.example.dev/team/app.git",
    "git://127.0.0.1/app.git",
    // Not this rule's: what a server may fetch is its --git-allow's judgement, in the Accepted condition.
    "ssh://git@git.example.dev/team/app.git",
  ])("passes %s", (url) => {
    expect(violationsFor(url)).toEqual([]);
  });

  test("waits for a URL that is not known yet (a preview's output of another resource)", () => {
    expect(violationsFor(UNKNOWN)).toEqual([]);
  });
});
