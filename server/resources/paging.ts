import { badRequest } from "../errors";
import type { StoredObject } from "../storage";

export interface Page {
  items: StoredObject[];
  /** Opaque token for the next page; absent on the last one. */
  continue?: string;
  remainingItemCount?: number;
}

/** What a continue token carries: the last name already returned (lists are ordered by name). */
interface ContinueToken {
  v: 1;
  start: string;
}

export function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined || text === "") return undefined;
  const limit = Number(text);
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw badRequest(`limit: "${text}" is not a valid page size; use a whole number of 0 (no limit) or more`);
  }
  return limit === 0 ? undefined : limit;
}

/** Names after the token's position, so objects created or deleted meanwhile neither repeat nor shift pages. */
export function paginate(
  items: readonly StoredObject[],
  limit: number | undefined,
  token: string | undefined,
): Page {
  const start = token === undefined || token === "" ? undefined : decodeToken(token).start;
  const remaining = start === undefined ? [...items] : items.filter((item) => item.metadata.name > start);
  if (limit === undefined || remaining.length <= limit) return { items: remaining };
  const page = remaining.slice(0, limit);
  const last = page[page.length - 1] as StoredObject;
  return {
    items: page,
    continue: encodeToken({ v: 1, start: last.metadata.name }),
    remainingItemCount: remaining.length - limit,
  };
}

function encodeToken(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString("base64url");
}

/** A token this server did not issue is a client error (400), as in Kubernetes. */
function decodeToken(text: string): ContinueToken {
  try {
    const token = JSON.parse(
      Buffer.from(text, "base64url").toString("utf8"),
    ) as Partial<ContinueToken> | null;
    if (token?.v === 1 && typeof token.start === "string") return { v: 1, start: token.start };
  } catch {
    // Falls through to the one error below.
  }
  throw badRequest(
    "continue: the token is not valid; pass the metadata.continue of the previous page unchanged",
  );
}
