// Which repository URLs the server fetches (`--git-allow` and its default), and one identity per
// repository for matching webhook deliveries to Services.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GitAllowList, malformedUrl } from "../../builder/git/url";
import { locate, repositoryKey } from "../../sdk/shared/repository-url";

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

describe("file:// URLs with a host", () => {
  const allow = new GitAllowList();

  it("are malformed, never a throw: no key, refused with what to write instead", () => {
    const url = "file://127.0.0.1/srv/git/app.git";
    expect(() => repositoryKey(url)).not.toThrow();
    expect(repositoryKey(url)).toBeUndefined();
    expect(locate(url)?.kind).toBe("malformed");
    const refusal = allow.refusal(url, FIELD) ?? "";
    expect(refusal).toContain(`${FIELD} "${url}" names the host "127.0.0.1"`);
    expect(refusal).toContain("write file:///srv/git/app.git or file://localhost/srv/git/app.git");
    expect(malformedUrl(url)).toContain("file:///srv/git/app.git");
    // An encoded `/` makes Node's fileURLToPath throw: a problem like any other.
    expect(malformedUrl("file:///srv/git%2Fapp")).toContain("is not a file path");
  });

  it("accepts an empty host and localhost, one repository for both", () => {
    for (const url of [
      "file:///srv/git/app.git",
      "file://localhost/srv/git/app.git",
      "file://LOCALHOST/srv/git/app",
    ]) {
      expect(malformedUrl(url)).toBeUndefined();
      expect(allow.refusal(url, FIELD)).toBeUndefined();
      expect(repositoryKey(url)).toBe("file:///srv/git/app");
    }
  });

  it("leaves other URLs to the allow-list, not to admission", () => {
    for (const url of ["git@github.com:team/app.git", "ssh://127.0.0.1/app.git", "https://github.com/a/b"]) {
      expect(malformedUrl(url)).toBeUndefined();
    }
  });
});

describe("--git-allow compares real paths", () => {
  // <root>/allowed holds a repository and links; <root>/outside is not allowed.
  const root = realpathSync(mkdtempSync(join(tmpdir(), "exampledev-git-allow-")));
  const allowed = join(root, "allowed");
  const outside = join(root, "outside");
  for (const dir of [join(allowed, "inner.git"), join(outside, "o.git")]) mkdirSync(dir, { recursive: true });
  symlinkSync("../outside/o.git", join(allowed, "link.git"));
  symlinkSync("../outside", join(allowed, "outdir"));
  symlinkSync("../outside/later.git", join(allowed, "dangling.git"));
  symlinkSync("inner.git", join(allowed, "inward.git"));
  symlinkSync("allowed", join(root, "allowed-link"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const allow = new GitAllowList([allowed]);

  it("refuses a symlink inside the allowed directory that leads outside, as a path and as file://", () => {
    for (const url of [join(allowed, "link.git"), `file://${allowed}/link.git`]) {
      expect(allow.refusal(url, FIELD)).toBe(
        `${FIELD} "${url}" leads to ${join(outside, "o.git")} (symlinks followed), which is not allowed: the server allows only URLs starting with ${allowed} (--git-allow); name a repository whose real path is under an allowed prefix, or start the server with --git-allow naming a prefix of ${join(outside, "o.git")}`,
      );
    }
  });

  it("judges a path that does not exist yet by its nearest existing ancestor, and follows dangling links", () => {
    expect(allow.judge(join(allowed, "new/app.git"), FIELD)).toEqual({
      ok: true,
      source: join(allowed, "new/app.git"),
    });
    expect(allow.refusal(join(allowed, "outdir/new.git"), FIELD)).toContain(`leads to ${outside}/new.git`);
    expect(allow.refusal(join(allowed, "dangling.git"), FIELD)).toContain(`leads to ${outside}/later.git`);
  });

  it("fetches the real path of a link that stays inside, and resolves a prefix that is a link", () => {
    expect(allow.judge(`file://localhost${allowed}/inward.git`, FIELD)).toEqual({
      ok: true,
      source: join(allowed, "inner.git"),
    });
    const viaLink = new GitAllowList([`file://${root}/allowed-link/`]);
    expect(viaLink.refusal(join(allowed, "inner.git"), FIELD)).toBeUndefined();
    expect(viaLink.refusal(join(allowed, "link.git"), FIELD)).toContain("leads to");
  });
});
