// A temporary copy of the repository for tests that run the examples or the READMEs' commands, so that what
// they write (stack config files `examples/*/Pulumi.<stack>.yaml`, `.pulumi-state/`, `.exampledev-server/`,
// `dist/`) never lands in the real working tree, where it would clash with a developer's own stacks.
//
// The copy holds the working tree's files that git does not ignore (tracked or new, as they are now) and
// `dist/`, all with their modification times, so a freshness check (scripts/run-built.sh) sees the same
// state as in the repository. `node_modules/` is a real directory of symlinks into the repository's, except
// the workspace links (`@exampledev/pulumi` -> `../..`, `exampledev-quickstart` -> `../examples/quickstart`,
// ...), which are recreated relative to the copy, so the examples import the copy's package.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export const repoRoot = path.resolve(__dirname, "../..");

export interface RepoCopy {
  /** The copy's root directory. */
  dir: string;
  dispose(): void;
}

/** Mirrors `from` (a node_modules directory or a scope in it) into `to`; see the comment at the top. */
function linkModules(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = path.join(from, name);
    const target = path.join(to, name);
    const stat = lstatSync(source);
    if (stat.isSymbolicLink() && !path.isAbsolute(readlinkSync(source))) {
      // A workspace link: the same relative target, which resolves inside the copy.
      symlinkSync(readlinkSync(source), target);
    } else if (stat.isDirectory() && name.startsWith("@") && hasRelativeLinks(source)) {
      linkModules(source, target);
    } else {
      symlinkSync(source, target);
    }
  }
}

function hasRelativeLinks(dir: string): boolean {
  return readdirSync(dir).some((name) => {
    const entry = path.join(dir, name);
    return lstatSync(entry).isSymbolicLink() && !path.isAbsolute(readlinkSync(entry));
  });
}

export interface CopyOptions {
  /**
   * Marks the copied `dist/` as the build of the copied sources (a fresh `dist/.build-stamp`), as it is after
   * `npm run build` on a clean checkout: `npm run server` and `npm run registry` then start without building.
   * Without it, a `dist/` older than sources someone is still editing is rebuilt in the copy.
   */
  distIsCurrent?: boolean;
}

/** Copies the repository into a new temporary directory (`exampledev-<label>-*`). */
export function copyRepository(label: string, options: CopyOptions = {}): RepoCopy {
  const dir = mkdtempSync(path.join(tmpdir(), `exampledev-${label}-`));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\0")
    .filter(Boolean);
  for (const file of new Set(files)) {
    const source = path.join(repoRoot, file);
    let isFile = false;
    try {
      isFile = statSync(source).isFile();
    } catch {
      // Deleted in the working tree but still in the index.
    }
    if (isFile) cpSync(source, path.join(dir, file), { preserveTimestamps: true });
  }
  cpSync(path.join(repoRoot, "dist"), path.join(dir, "dist"), {
    recursive: true,
    preserveTimestamps: true,
  });
  if (options.distIsCurrent) writeFileSync(path.join(dir, "dist/.build-stamp"), "");
  linkModules(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
