import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";

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

/** The lines of a Markdown document outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split("\n").forEach((line, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) fence = marker;
    else if (
      fence !== undefined &&
      marker !== undefined &&
      marker[0] === fence[0] &&
      marker.length >= fence.length
    )
      fence = undefined;
    else if (fence === undefined) lines.push({ line: index + 1, text: line });
  });
  return lines;
}

/** GitHub's anchor for a heading: its text without formatting, lowercased, punctuation dropped, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*_~]/g, (char) => (char === "_" ? "_" : ""))
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a document offers: its headings' slugs (repeats numbered as GitHub does) and explicit ids. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const [, id] of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id as string);
  }
  return found;
}

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
