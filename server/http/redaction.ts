import { redactPayload } from "../resources/redaction";
import { shared } from "./shared";

/**
 * The one place responses are redacted: every body on its way out, whichever route produced it, so a
 * new route cannot forget. Stored objects keep their secrets for the controller, the one reader of them.
 */
export const redaction = shared(async (fastify) => {
  fastify.addHook("preSerialization", async (request, _reply, payload) =>
    request.seesSecrets ? payload : redactPayload(payload),
  );
});
