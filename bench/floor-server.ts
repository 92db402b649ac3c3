// The floor the request path is measured against (request-floor.ts): a bare fastify route that parses a JSON
// body and answers it back, with no validation, storage or admission. `node dist/bench/floor-server.js`
// prints `listening on <url>` and stops on SIGTERM. Objects are kept by name so that a GET and a merge patch
// answer what a create stored, as the API does; a patch merges the document's top-level keys.
import { once } from "node:events";
import Fastify from "fastify";

type Stored = Record<string, unknown> & { metadata: { name: string } };

async function main(): Promise<void> {
  const app = Fastify({ logger: false });
  const objects = new Map<string, Stored>();
  app.addContentTypeParser("application/merge-patch+json", { parseAs: "string" }, (_request, body, done) =>
    done(null, JSON.parse(body as string)),
  );
  app.post<{ Body: Stored }>("/items", async (request, reply) => {
    objects.set(request.body.metadata.name, request.body);
    return reply.code(201).send(request.body);
  });
  app.get<{ Params: { name: string } }>("/items/:name", async (request, reply) => {
    const object = objects.get(request.params.name);
    return object === undefined ? reply.code(404).send({ reason: "NotFound" }) : object;
  });
  app.patch<{ Params: { name: string }; Body: Record<string, unknown> }>(
    "/items/:name",
    async (request, reply) => {
      const before = objects.get(request.params.name);
      if (before === undefined) return reply.code(404).send({ reason: "NotFound" });
      const after = { ...before, ...request.body } as Stored;
      objects.set(request.params.name, after);
      return after;
    },
  );
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  console.log(`listening on ${url}`);
  await once(process, "SIGTERM");
  await app.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
