import { statfsSync } from "node:fs";
import { type SpaceExceededError, spaceExceeded } from "../../sdk/errors/server-errors";

const SQLITE_FULL = 13;

/** Below this many free bytes the disk, not the quota, is what ran out. */
const DISK_FULL_BELOW = 1024 * 1024;

/** SQLite's "database or disk is full": the disk, or `max_page_count` (the quota), has no room for a write. */
export function isOutOfSpace(error: unknown): boolean {
  const { errcode, code } = (error ?? {}) as { errcode?: unknown; code?: unknown };
  return errcode === SQLITE_FULL || code === "ENOSPC";
}

/** The refusal of a write for lack of space in `dir`, naming what ran out. */
export function outOfSpace(dir: string, maxBytes: number | undefined, cause: unknown): SpaceExceededError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  const quota = maxBytes !== undefined && freeBytes(dir) >= DISK_FULL_BELOW;
  return spaceExceeded(
    dir,
    quota ? `the store reached --max-storage, ${maxBytes} bytes` : `the disk has no space left: ${detail}`,
  );
}

function freeBytes(dir: string): number {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return 0;
  }
}
