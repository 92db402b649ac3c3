import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { anchors, proseLines, slug } from "../../helpers/markdown";

// Every relative link of the documentation resolves: the file or folder exists, and a `#anchor` is the GitHub
// slug of a heading in the target file. The README, docs/ and the READMEs of the parts, as GitHub renders them.

const REPO = path.resolve(__dirname, "../../..");
const PARTS = ["server", "provider", "sdk", "kube", "policies", "examples", "bench"];
const SKIP = new Set(["node_modules", "dist", "build"]);

function readmesUnder(dir: string): string[] {
  return readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : readmesUnder(relative);
    return entry.name === "README.md" ? [relative] : [];
  });
}

const DOCUMENTS = [
  "README.md",
  ...readdirSync(path.join(REPO, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  ...PARTS.flatMap(readmesUnder),
].sort();

interface Link {
  document: string;
  line: number;
  target: string;
}

/** The relative links of a document: inline links and images outside code, and reference definitions. */
function links(document: string): Link[] {
  const text = readFileSync(path.join(REPO, document), "utf8");
  return proseLines(text).flatMap(({ line, text: content }) => {
    const prose = content.replace(/(`+)[^`]*?\1/g, "");
    const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]);
    const definitions = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)].map((match) => match[1]);
    return [...inline, ...definitions]
      .filter((target): target is string => target !== undefined && !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ document, line, target }));
  });
}

/** Why a link does not resolve, or undefined when it does. */
function problem({ document, target }: Link): string | undefined {
  const [file = "", anchor] = target.split("#", 2);
  const resolved =
    file === "" ? document : path.posix.normalize(path.posix.join(path.posix.dirname(document), file));
  const full = path.join(REPO, decodeURIComponent(resolved));
  if (resolved.startsWith("..") || !existsSync(full)) return `${resolved} does not exist`;
  if (anchor === undefined || anchor === "") return undefined;
  const markdown = statSync(full).isDirectory() ? path.join(full, "README.md") : full;
  if (!markdown.endsWith(".md") || !existsSync(markdown))
    return `#${anchor}: ${resolved} is not a Markdown file`;
  const offered = anchors(readFileSync(markdown, "utf8"));
  return offered.has(decodeURIComponent(anchor))
    ? undefined
    : `#${anchor} is no heading of ${resolved} (it has ${[...offered].map((id) => `#${id}`).join(", ")})`;
}

describe("documentation links", () => {
  test("the documents are found", () => {
    expect(DOCUMENTS).toContain("README.md");
    expect(DOCUMENTS).toContain("docs/reference.md");
    expect(DOCUMENTS).toContain("server/README.md");
    expect(DOCUMENTS).toContain("examples/quickstart/README.md");
  });

  test.each(DOCUMENTS)("every relative link and anchor of %s resolves", (document) => {
    const broken = links(document).flatMap((link) => {
      const why = problem(link);
      return why === undefined ? [] : [`${link.document}:${link.line}: (${link.target}) ${why}`];
    });
    expect(broken).toEqual([]);
  });
});

describe("GitHub slugs", () => {
  test.each([
    ["Quick start", "quick-start"],
    ["`check` (preview)", "check-preview"],
    ["kubectl, OpenAPI and server-side apply", "kubectl-openapi-and-server-side-apply"],
    ["Native package (any Pulumi language)", "native-package-any-pulumi-language"],
    [
      "The API on it: admission and secrets (`kube/api.ts`, `kube/admission/`)",
      "the-api-on-it-admission-and-secrets-kubeapits-kubeadmission",
    ],
    ["Validation rules and the policy pack", "validation-rules-and-the-policy-pack"],
  ])("%s -> #%s", (heading, expected) => {
    expect(slug(heading)).toBe(expected);
  });

  test("a repeated heading gets a number, as on GitHub", () => {
    expect([...anchors("# A\n## Usage\n## Usage\n```\n# not a heading\n```\n")]).toEqual([
      "a",
      "usage",
      "usage-1",
    ]);
  });

  test("links in code are not links", () => {
    expect(proseLines("a\n```md\n[x](nowhere.md)\n```\nb").map((line) => line.text)).toEqual(["a", "b"]);
  });
});
