// `POST /hooks/git`: webhook deliveries (GitHub's `push`, `pull_request`, `ping`; GitLab's push and merge
// request events), whatever HTTP server carries them: the local server's fastify route and the controller
// command's node:http endpoint both hand the raw body here and send back what it answers. The repository is
// matched to Services by URL, its mirror fetched, and those Services synced; the answer (202) names them.
// With a webhook secret (`--webhook-secret`) a delivery must be signed with it, checked on the raw bytes
// before they are parsed (401 otherwise). A delivery id seen within the hour is answered 200 and not acted
// on again. A replica whose controller is not ready (a standby, or a new leader still listing) answers 503
// with Retry-After, and the id stays unclaimed so that a redelivery is acted on.
import type { IncomingHttpHeaders } from "node:http";
import { type HookEvent, parseHookEvent } from "../../builder/git";
import { failureStatus, type Reason } from "../../sdk/errors/reasons";
import type { HookResult } from "../git-sources";
import { RecentDeliveries } from "./recent-deliveries";
import { headerValue, verifyDelivery } from "./signature";

export const GIT_HOOK_PATH = "/hooks/git";

/** GitHub's own cap on a delivery's payload; the API's object limit does not apply to deliveries. */
export const MAX_HOOK_BODY_BYTES = 25 * 1024 * 1024;

/** How long a standby asks the forge to wait: about one lease duration, when a new leader has taken over. */
const STANDBY_RETRY_AFTER_S = 15;

/** What deliveries are handed to: the running controller's git sources. */
export interface GitHookReceiver {
  /** What the event matched; undefined when no controller is ready here (a standby replica). */
  receive(event: HookEvent): HookResult | undefined;
}

export interface GitHookOptions {
  receiver: GitHookReceiver;
  /** The webhook secret deliveries are signed with; undefined when the server's API token guards them. */
  secret?: string;
}

/** One delivery as it arrived: its headers and its body, unparsed. */
export interface HookDelivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The answer to send: a status code, a JSON body (a Status when refused), and extra headers. */
export interface HookAnswer {
  status: number;
  body: object;
  headers?: Record<string, string>;
}

export type GitHookHandler = (delivery: HookDelivery) => HookAnswer;

/** A refusal as the API answers one: a Status naming the path. */
export function hookRefusal(reason: Reason, message: string): HookAnswer {
  const body = failureStatus(reason, `${GIT_HOOK_PATH}: ${message}`);
  return { status: body.code, body };
}

export function gitHookHandler({ receiver, secret }: GitHookOptions): GitHookHandler {
  const deliveries = new RecentDeliveries();
  return ({ headers, body: raw }) => {
    if (secret !== undefined) {
      const verdict = verifyDelivery(headers, raw, secret);
      if (!verdict.ok) return hookRefusal("Unauthorized", verdict.message);
    }
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
    } catch {
      return hookRefusal("BadRequest", "the payload is not JSON");
    }
    const event = parseHookEvent(
      { github: headerValue(headers["x-github-event"]), gitlab: headerValue(headers["x-gitlab-event"]) },
      body,
    );
    if (typeof event === "string") return hookRefusal("BadRequest", event);
    const id = headerValue(headers["x-github-delivery"]) ?? headerValue(headers["x-gitlab-event-uuid"]);
    if (id !== undefined && !deliveries.claim(id)) {
      return { status: 200, body: { event: event.event, delivery: id, duplicate: true, matched: [] } };
    }
    const result = receiver.receive(event);
    if (result === undefined) {
      if (id !== undefined) deliveries.release(id);
      return {
        ...hookRefusal(
          "ServiceUnavailable",
          "no controller is ready on this replica (a standby, or a leader still listing); the replica holding the Lease takes deliveries: redeliver, or the next --git-poll-interval fetch picks the push up",
        ),
        headers: { "retry-after": String(STANDBY_RETRY_AFTER_S) },
      };
    }
    return {
      status: 202,
      body: {
        event: event.event,
        ...(event.pullRequest && { pullRequest: event.pullRequest }),
        repositories: event.repositories,
        matched: result.matched,
      },
    };
  };
}
