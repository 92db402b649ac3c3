import { failureStatus } from "../../sdk/errors/reasons";
import { SpaceExceededError } from "../../sdk/errors/server-errors";
import type { ObjectStore } from "../storage";
import { errorFields } from "./request-log";
import { shared } from "./shared";

/**
 * No answer leaves before what the store holds is durable: the store groups the writes that arrive
 * together into one commit, and this hook holds every response (a write's, and a read's, which may show
 * another request's write) until that commit is made. Routes need not know: they write, and the answer
 * waits here. A failed commit is never answered as success: the response becomes a 500 `Status` (and
 * the server stops, unless the commit only found no space; see `startServer`).
 */
export const durability = shared<{ store: ObjectStore }>(async (fastify, { store }) => {
  fastify.addHook("onSend", async (request, reply, payload) => {
    try {
      await store.durable();
      return payload;
    } catch (error) {
      request.log.error({ error: errorFields(error) }, "the store could not commit; the answer is an error");
      // Out of space, the writes are undone (this answer may have shown them) and the server goes on.
      const status =
        error instanceof SpaceExceededError
          ? error.status
          : failureStatus("InternalError", "the server could not store the change durably");
      reply.code(status.code).header("content-type", "application/json; charset=utf-8");
      reply.removeHeader("location");
      return JSON.stringify(status);
    }
  });
});
