// Which repository URLs the server fetches (`--git-allow` and its default), and one identity per
// repository for matching webhook deliveries to Services.
import { describe, expect, it } from "vitest";
import { GitAllowList, repositoryKey } from "../../server/controller/git/url";

const FIELD = "spec.source.git.url";

describe("the default allow-list", () => {
  const allow = new GitAllowList();

  it.each([
    "/srv/git/app.git",
    "file:///srv/git/app.git",
    "http://127.0.0.1:8080/app.git",
    "https://localhost/app.git",
    "git://[::1]:9418/app.git",
    "http://127.1.2.3/app",
  ])("allows %s", (url) => {
    expect(allow.refusal(url, FIELD)).toBeUndefined();
  });

  it.each([
    [
      "https://github.com/team/app.git",
      "by default the server fetches only local paths, file:// URLs and loopback hosts",
    ],
    ["http://127.0.0.1.example.dev/app.git", "by default the server fetches only local paths"],
    ["ext::sh -c touch% /tmp/pwned", "is not a repository this server can fetch"],
    ["git@github.com:team/app.git", "is not a repository this server can fetch"],
    ["ssh://git@127.0.0.1/app.git", "is not a repository this server can fetch"],
    ["relative/path", "is not a repository this server can fetch"],
    ["http://user:secret@127.0.0.1/app.git", "carries credentials in the URL"],
  ])("refuses %s", (url, message) => {
    const refusal = allow.refusal(url, FIELD) ?? "";
    expect(refusal).toContain(message);
    expect(refusal).toContain(FIELD);
    expect(refusal).not.toContain("secret");
  });
});

describe("--git-allow prefixes", () => {
  const allow = new GitAllowList(["https://git.example.dev/team", "/srv/git/"]);

  it("allows URLs under a prefix, up to a path boundary", () => {
    expect(allow.refusal("https://git.example.dev/team/app.git", FIELD)).toBeUndefined();
    expect(allow.refusal("https://git.example.dev/team", FIELD)).toBeUndefined();
    expect(allow.refusal("file:///srv/git/app", FIELD)).toBeUndefined();
    expect(allow.refusal("/srv/git/app", FIELD)).toBeUndefined();
  });

  it("refuses look-alikes, climbing out with .., and loopback hosts it does not list", () => {
    expect(allow.refusal("https://git.example.dev/team-evil/app.git", FIELD)).toContain("--git-allow");
    expect(allow.refusal("https://git.example.dev/team/../other/app.git", FIELD)).toContain("--git-allow");
    expect(allow.refusal("/srv/git/../../etc", FIELD)).toContain("--git-allow");
    expect(allow.refusal("http://127.0.0.1/app.git", FIELD)).toContain("--git-allow");
  });
});

describe("repositoryKey", () => {
  it("spells one repository one way", () => {
    const keys = [
      "https://GitHub.com/team/app.git",
      "https://github.com/team/app",
      "git://github.com/team/app.git/",
      "http://github.com/team/app/",
    ].map(repositoryKey);
    expect(new Set(keys)).toEqual(new Set(["github.com/team/app"]));
    expect(repositoryKey("/srv/git/app.git/")).toBe("file:///srv/git/app");
    expect(repositoryKey("file:///srv/git/app")).toBe("file:///srv/git/app");
    // Paths keep their case: they name different repositories.
    expect(repositoryKey("https://github.com/team/App")).not.toBe(
      repositoryKey("https://github.com/team/app"),
    );
    expect(repositoryKey("git@github.com:team/app.git")).toBeUndefined();
  });
});
