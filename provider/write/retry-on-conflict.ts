import { ConflictError } from "../../sdk/client";

/** How many times a write is tried when each try ends in a 409 Conflict. */
export const CONFLICT_ATTEMPTS = 5;

/**
 * Runs `write` again after a 409 Conflict (the controller wrote status since the object was read), at most
 * `attempts` times in all; any other error ends it at once. `write` reads the object it writes over on every
 * try, so each try sends the latest resourceVersion. No pause: the conflicting write has already happened.
 */
export async function retryOnConflict<T>(write: () => Promise<T>, attempts = CONFLICT_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= attempts) throw error;
    }
  }
}
