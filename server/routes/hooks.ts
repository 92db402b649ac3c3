// `POST /hooks/git`: webhook deliveries (GitHub's `push`, `pull_request`, `ping`; GitLab's push and merge
// request events). The repository is matched to Services by URL, its mirror fetched, and those Services
// synced; the answer (202) names them. With a webhook secret (`--webhook-secret`) a delivery must be signed
// with it (checked on the raw body before it is parsed; 401 otherwise) and needs no API token, as a forge
// cannot send one; without a secret it needs the API token like every route but /healthz. A delivery id
// seen within the hour is answered 200 and not acted on again.
import type { FastifyPluginAsync } from "fastify";
import { type HookEvent, type HookResult, parseHookEvent } from "../../controller";
import { apiError, badRequest } from "../../sdk/errors/server-errors";
import { JSON_TYPE } from "../http/content-types";
import { decodeUtf8 } from "../http/strict-json";
import { verifyDelivery } from "../http/webhook-signature";
import { RecentDeliveries } from "./recent-deliveries";

export const GIT_HOOK_PATH = "/hooks/git";

/** GitHub's own cap on a delivery's payload; the API's object limit does not apply to deliveries. */
export const MAX_HOOK_BODY_BYTES = 25 * 1024 * 1024;

/** What the route hands deliveries to: the controller's git sources. */
export interface GitHookReceiver {
  receive(event: HookEvent): HookResult;
}

export interface HookRouteOptions {
  receiver: GitHookReceiver;
  /** The webhook secret deliveries are signed with; without it the API token guards the route. */
  secret?: string;
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export const hookRoutes: FastifyPluginAsync<HookRouteOptions> = async (fastify, { receiver, secret }) => {
  // The raw bytes, unparsed: a signature is over them. JSON only (others 415), up to GitHub's cap.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(JSON_TYPE, { parseAs: "buffer" }, (_request, body, done) => done(null, body));
  const deliveries = new RecentDeliveries();

  fastify.post(GIT_HOOK_PATH, { bodyLimit: MAX_HOOK_BODY_BYTES }, async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (secret !== undefined) {
      const verdict = verifyDelivery(request.headers, raw, secret);
      if (!verdict.ok) throw apiError("Unauthorized", `${GIT_HOOK_PATH}: ${verdict.message}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(decodeUtf8(raw));
    } catch {
      throw badRequest(`${GIT_HOOK_PATH}: the payload is not JSON`);
    }
    const event = parseHookEvent(
      {
        github: header(request.headers["x-github-event"]),
        gitlab: header(request.headers["x-gitlab-event"]),
      },
      body,
    );
    if (typeof event === "string") throw badRequest(`${GIT_HOOK_PATH}: ${event}`);
    const id = header(request.headers["x-github-delivery"]) ?? header(request.headers["x-gitlab-event-uuid"]);
    if (id !== undefined && !deliveries.claim(id)) {
      return reply.code(200).send({ event: event.event, delivery: id, duplicate: true, matched: [] });
    }
    const { matched } = receiver.receive(event);
    return reply.code(202).send({
      event: event.event,
      ...(event.pullRequest && { pullRequest: event.pullRequest }),
      repositories: event.repositories,
      matched,
    });
  });
};
