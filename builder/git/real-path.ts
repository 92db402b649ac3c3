// Where a local path really leads, for `--git-allow`: an allowed directory's text says nothing about a
// symlink inside it that points elsewhere. Synchronous: a few lstat calls on local paths, made when a
// URL is judged (admission, a sync, right before a fetch), never a network round trip.
import { readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** Symlinks followed by hand before giving up, as the kernel's own bound (ELOOP). */
const MAX_LINKS = 40;

/**
 * The canonical path of absolute `path`, symlinks resolved. A path that does not exist yet is its
 * nearest existing ancestor's real path plus the rest; a dangling symlink is followed to its target,
 * which may appear later.
 */
export function realPathOf(path: string, links = 0): string {
  const rest: string[] = [];
  let head = path;
  for (;;) {
    try {
      return join(realpathSync(head), ...rest);
    } catch {
      const target = linkTarget(head);
      if (target !== undefined && links < MAX_LINKS) {
        return join(realPathOf(resolve(dirname(head), target), links + 1), ...rest);
      }
      const parent = dirname(head);
      if (parent === head) return path;
      rest.unshift(basename(head));
      head = parent;
    }
  }
}

function linkTarget(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
