// `POST /hooks/git` on the local server: the controller's hook handler (controller/hooks/handler.ts, which
// the controller command serves too) behind fastify's body handling. The raw bytes reach it unparsed (a
// signature is over them); JSON only (others 415), up to GitHub's cap (413). With a webhook secret
// (`--webhook-secret`) deliveries need no API token, as a forge cannot send one (app.ts); without one they
// need the API token like every route but /healthz.
import type { FastifyPluginAsync } from "fastify";
import { GIT_HOOK_PATH, type GitHookOptions, gitHookHandler, MAX_HOOK_BODY_BYTES } from "../../controller";
import { JSON_TYPE } from "../http/content-types";

export const hookRoutes: FastifyPluginAsync<GitHookOptions> = async (fastify, options) => {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(JSON_TYPE, { parseAs: "buffer" }, (_request, body, done) => done(null, body));
  const handle = gitHookHandler(options);

  fastify.post(GIT_HOOK_PATH, { bodyLimit: MAX_HOOK_BODY_BYTES }, async (request, reply) => {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const answer = handle({ headers: request.headers, body });
    return reply
      .code(answer.status)
      .headers(answer.headers ?? {})
      .send(answer.body);
  });
};
