// `POST /hooks/git`: GitHub-style webhook deliveries (`push`, `pull_request`, `ping`). The repository
// is matched to Services by URL, its mirror fetched, and those Services synced; the answer (202) names
// them. Behind the server token like every route but /healthz.
import type { FastifyPluginAsync } from "fastify";
import { type HookEvent, type HookResult, parseHookEvent } from "../../controller";
import { badRequest } from "../errors";

export const GIT_HOOK_PATH = "/hooks/git";

/** What the route hands deliveries to: the controller's git sources. */
export interface GitHookReceiver {
  receive(event: HookEvent): HookResult;
}

export const hookRoutes: FastifyPluginAsync<{ receiver: GitHookReceiver }> = async (
  fastify,
  { receiver },
) => {
  fastify.post(GIT_HOOK_PATH, async (request, reply) => {
    const header = request.headers["x-github-event"];
    const event = parseHookEvent(Array.isArray(header) ? header[0] : header, request.body);
    if (typeof event === "string") throw badRequest(`${GIT_HOOK_PATH}: ${event}`);
    const { matched } = receiver.receive(event);
    return reply.code(202).send({
      event: event.event,
      ...(event.pullRequest && { pullRequest: event.pullRequest }),
      repositories: event.repositories,
      matched,
    });
  });
};
