// The git hook on a node:http server (the controller command's, beside /healthz): what fastify does before
// the local server's route runs, by hand. POST only (405), JSON only (415), and the body counted as it
// arrives: over the cap it is 413, unread when Content-Length says so, and the connection is closed.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type GitHookHandler, type HookAnswer, hookRefusal, MAX_HOOK_BODY_BYTES } from "./handler";

const TOO_LARGE = `the delivery is over ${MAX_HOOK_BODY_BYTES} bytes`;

export function serveGitHook(
  request: IncomingMessage,
  response: ServerResponse,
  handle: GitHookHandler,
): void {
  const refusal = refusalBeforeReading(request);
  if (refusal) {
    send(response, refusal, true);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  request.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_HOOK_BODY_BYTES) chunks.push(chunk);
    else if (!response.headersSent) {
      chunks.length = 0;
      send(response, hookRefusal("RequestEntityTooLarge", TOO_LARGE), true);
    }
  });
  request.on("end", () => {
    if (size <= MAX_HOOK_BODY_BYTES)
      send(response, handle({ headers: request.headers, body: Buffer.concat(chunks) }));
  });
}

/** What the headers alone refuse: another method, another media type, a Content-Length over the cap. */
function refusalBeforeReading({ method, headers }: IncomingMessage): HookAnswer | undefined {
  if (method !== "POST") return hookRefusal("MethodNotAllowed", "use POST");
  if (headers["content-type"]?.split(";")[0]?.trim().toLowerCase() !== "application/json")
    return hookRefusal("UnsupportedMediaType", "send the payload as application/json");
  if (Number(headers["content-length"] ?? 0) > MAX_HOOK_BODY_BYTES)
    return hookRefusal("RequestEntityTooLarge", TOO_LARGE);
  return undefined;
}

/** `close`: the body was not read to its end, so the connection cannot carry another request. */
function send(response: ServerResponse, { status, body, headers }: HookAnswer, close = false): void {
  response
    .writeHead(status, {
      "content-type": "application/json",
      ...headers,
      ...(close && { connection: "close" }),
    })
    .end(JSON.stringify(body));
}
