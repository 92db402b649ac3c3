import { randomUUID } from "node:crypto";
import { ApiError, CreateUnconfirmedError, TransportError } from "../errors";

/**
 * The annotation that makes a create recognisable: a token unique to one create, written with the object.
 * After a lost answer, a 409 AlreadyExists or exhausted retries, the object stored under the name is this
 * create's only when it carries the same token; an equal spec proves nothing (another stack may have declared
 * the same object), so nothing else is taken as ours.
 */
export const CREATE_TOKEN_ANNOTATION = "example.dev/create-token";

/** A new token for one create (keep it: the same create, repeated later, must send the same one). */
export function newCreateToken(): string {
  return randomUUID();
}

export function createTokenOf(object: unknown): string | undefined {
  const annotations = (object as { metadata?: { annotations?: Record<string, string> } } | undefined)
    ?.metadata?.annotations;
  return annotations?.[CREATE_TOKEN_ANNOTATION];
}

/** The object with the token among its annotations (a copy; the object itself is not changed). */
export function withCreateToken<T>(object: T, token: string): T {
  const metadata = (object as { metadata?: { annotations?: Record<string, string> } }).metadata ?? {};
  return {
    ...object,
    metadata: { ...metadata, annotations: { ...metadata.annotations, [CREATE_TOKEN_ANNOTATION]: token } },
  };
}

/** Whether `object` is the one the create with `token` stored. */
export function isOwnCreate<T>(object: T | undefined, token: string): object is T {
  return object !== undefined && createTokenOf(object) === token;
}

/**
 * Whether a failed write may nevertheless have stored the object: the answer was lost, or the server (or a
 * gateway before it) failed.
 */
export function mayHaveStored(error: unknown): boolean {
  if (error instanceof TransportError) return error.mayHaveReachedServer;
  return error instanceof ApiError && (error.code >= 500 || error.code === 429);
}

/**
 * After a create that failed with `error` but may have stored the object: the object now under the name,
 * undefined when there is none. When the lookup fails too, whether the object exists is unknown.
 */
export async function storedAfterFailedCreate<T>(
  subject: string,
  name: string,
  error: Error,
  lookUp: () => Promise<T | undefined>,
): Promise<T | undefined> {
  try {
    return await lookUp();
  } catch (lookupError) {
    throw new CreateUnconfirmedError(subject, name, error, lookupError);
  }
}
