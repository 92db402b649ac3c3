// Webhook deliveries read into what the controller acts on: which repository, and for a pull request its
// number and whether it is open. GitHub-style events (`X-GitHub-Event: push | pull_request | ping`), and
// GitLab's push and merge-request events (`X-Gitlab-Event`), which fetch the repository like a push
// (GitLab's merge-request refs are not mirrored, so they get no previews).
import { isRecord } from "../../sdk/shared/records";
import { malformedUrl, repositoryKey } from "./url";

export const HANDLED_EVENTS = ["push", "pull_request", "ping"] as const;
export type HookEventName = (typeof HANDLED_EVENTS)[number];

/** Fields of `repository` that name it, in GitHub's payloads (and in self-hosted forges'). */
const URL_FIELDS = ["clone_url", "html_url", "url", "git_url", "ssh_url", "svn_url"] as const;

/** Fields of `project` that name it, in GitLab's payloads. */
const GITLAB_URL_FIELDS = ["git_http_url", "web_url", "http_url"] as const;

/** GitLab's events (`X-Gitlab-Event`) and the event each is handled as. */
const GITLAB_EVENTS: Readonly<Record<string, HookEventName>> = {
  "Push Hook": "push",
  "Merge Request Hook": "push",
};

/** The event headers of a delivery: GitHub's, or GitLab's. */
export interface HookHeaders {
  github?: string;
  gitlab?: string;
}

/** Pull-request actions that (re)open it or move its head; `closed` ends it; others change neither. */
const OPEN_ACTIONS: ReadonlySet<string> = new Set(["opened", "synchronize", "reopened"]);

export interface HookEvent {
  event: HookEventName;
  /** `repositoryKey` of every URL the payload names. */
  repositories: string[];
  /** `open` is undefined for actions that neither open nor close it (labeled, edited, ...). */
  pullRequest?: { number: number; open: boolean | undefined; action: string };
}

/** The event, or a sentence saying what is wrong with the delivery (for a 400). */
export function parseHookEvent(headers: HookHeaders, body: unknown): HookEvent | string {
  if (!headers.github && headers.gitlab) return parseGitLabEvent(headers.gitlab, body);
  const name = headers.github;
  if (!name) return "the X-GitHub-Event header is missing: send push or pull_request events";
  if (!(HANDLED_EVENTS as readonly string[]).includes(name)) {
    return `X-GitHub-Event "${name}" is not handled: send push or pull_request events`;
  }
  const event = name as HookEventName;
  if (!isRecord(body)) return "the payload must be a JSON object";
  if (event === "ping") return { event, repositories: [] };
  const repositories = repositoriesOf(body, "repository", URL_FIELDS);
  if (typeof repositories === "string") return repositories;
  if (event === "push") return { event, repositories };
  const number = body.number ?? (isRecord(body.pull_request) ? body.pull_request.number : undefined);
  const action = body.action;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) {
    return "a pull_request payload needs number, a positive integer";
  }
  if (typeof action !== "string")
    return "a pull_request payload needs action (opened, synchronize, closed, ...)";
  return {
    event,
    repositories,
    pullRequest: {
      number,
      open: action === "closed" ? false : OPEN_ACTIONS.has(action) || undefined,
      action,
    },
  };
}

function parseGitLabEvent(name: string, body: unknown): HookEvent | string {
  const event = GITLAB_EVENTS[name];
  if (!event) {
    return `X-Gitlab-Event "${name}" is not handled: send ${Object.keys(GITLAB_EVENTS).join(" or ")} events`;
  }
  if (!isRecord(body)) return "the payload must be a JSON object";
  const repositories = repositoriesOf(body, "project", GITLAB_URL_FIELDS);
  return typeof repositories === "string" ? repositories : { event, repositories };
}

/** `repositoryKey` of every URL `body[object]` names, or what is wrong with it. */
function repositoriesOf(
  body: Record<string, unknown>,
  object: string,
  fields: readonly string[],
): string[] | string {
  const repository = body[object];
  if (!isRecord(repository)) return `the payload has no ${object} object`;
  const named = fields.flatMap((field) => {
    const value = repository[field];
    return typeof value === "string" ? [{ field, value }] : [];
  });
  const repositories = [
    ...new Set(
      named.flatMap(({ value }) => {
        const key = repositoryKey(value);
        return key === undefined ? [] : [key];
      }),
    ),
  ];
  if (repositories.length > 0) return repositories;
  // Fields no Service can name (GitHub's scp-style ssh_url) are skipped; a delivery naming nothing else
  // is malformed, and says so about the field that cannot be read.
  const malformed = named.flatMap(({ field, value }) => {
    const problem = malformedUrl(value);
    return problem === undefined ? [] : [`${object}.${field} "${value}" ${problem}`];
  });
  return malformed[0] ?? `${object} names no URL: set one of ${object}.${fields.join(`, ${object}.`)}`;
}
