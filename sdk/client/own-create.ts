import { randomUUID } from "node:crypto";

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
