import { redactPayload } from "../resources/redaction";
import { shared } from "./shared";

/**
 * The one place responses are redacted: every body on its way out, whichever route produced it, so a
 * new route cannot forget. Stored objects keep their secrets; the controller reads them as Secrets (routes/secrets.ts).
 */
export const redaction = shared(async (fastify) => {
  fastify.addHook("preSerialization", async (_request, _reply, payload) => redactPayload(payload));
});
