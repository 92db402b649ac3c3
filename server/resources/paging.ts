import { badRequest } from "../../sdk/errors/server-errors";

/** What a continue token carries: the last name already returned (lists are ordered by name). */
interface ContinueToken {
  v: 1;
  start: string;
}

/**
 * The continue token of a page ending at `lastName`: the next page starts after that name in the current
 * state, so objects created or deleted meanwhile neither repeat nor shift pages.
 */
export function continueToken(lastName: string): string {
  return encodeToken({ v: 1, start: lastName });
}

/** The name a continue token says to start after; undefined for the first page. */
export function continueAfter(token: string | undefined): string | undefined {
  return token === undefined || token === "" ? undefined : decodeToken(token).start;
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
