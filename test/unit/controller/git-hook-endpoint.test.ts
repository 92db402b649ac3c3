// `POST /hooks/git` on the controller command's health port (controller/hooks/node-http.ts around the one
// handler): what fastify does for the local server's route is done by hand here, so each refusal is checked
// on a real node:http server — 405, 415, 413 (declared and counted), 401, 400 — then a signed delivery is
// 202, its redelivery 200, and a replica without a ready controller 503 without spending the delivery id.
import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { HookEvent } from "../../../builder/git";
import { type HealthServer, startHealthServer } from "../../../controller/health";
import { GIT_HOOK_PATH, gitHookHandler, MAX_HOOK_BODY_BYTES } from "../../../controller/hooks/handler";

const SECRET = "endpoint-secret-51c9";
const PUSH = JSON.stringify({ repository: { clone_url: "https://git.example.dev/team/app.git" } });
const signed = (body: string) => `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The endpoint with a receiver that is ready while `ready` says so, and records what it received. */
async function endpoint(ready: () => boolean = () => true) {
  const received: HookEvent[] = [];
  const receiver = {
    receive: (event: HookEvent) => {
      if (!ready()) return undefined;
      received.push(event);
      return { matched: ["app"] };
    },
  };
  server = await startHealthServer(
    { address: "127.0.0.1", port: 0 },
    () => "leading",
    gitHookHandler({ receiver, secret: SECRET }),
  );
  return { url: `${server.url}${GIT_HOOK_PATH}`, received };
}

interface Sent {
  method?: string;
  headers?: Record<string, string>;
  /** Written in chunks of 1 MiB when a number: that many MiB, without a Content-Length. */
  body?: string | number;
}

function send(url: string, { method = "POST", headers = {}, body = "" }: Sent) {
  return new Promise<{ status: number; headers: Record<string, unknown>; json: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = httpRequest(url, { method, headers }, (response) => {
        let text = "";
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, json: JSON.parse(text) }),
        );
      });
      // The server may close a connection whose body it refused before the body is all written.
      req.on("error", (error) => (req.destroyed ? undefined : reject(error)));
      if (typeof body === "string") {
        req.end(body);
        return;
      }
      const chunk = Buffer.alloc(1024 * 1024, "a");
      let sent = 0;
      const write = () => {
        while (sent < body && !req.destroyed) {
          sent++;
          if (!req.write(chunk)) return void req.once("drain", write);
        }
        req.end();
      };
      write();
    },
  );
}

const push = (headers: Record<string, string> = {}, body = PUSH): Sent => ({
  headers: { "content-type": "application/json", "x-github-event": "push", ...headers },
  body,
});

describe("POST /hooks/git on the controller's health port", () => {
  it("refuses by the headers alone: another method 405, another media type 415, a declared size over the cap 413", async () => {
    const { url, received } = await endpoint();
    expect((await send(url, { method: "PUT", ...push() })).status).toBe(405);
    const text = await send(url, {
      ...push(),
      headers: { "content-type": "text/plain", "x-github-event": "push" },
    });
    expect(text.status).toBe(415);
    expect(text.json).toMatchObject({ kind: "Status", reason: "UnsupportedMediaType" });
    const declared = await send(url, {
      ...push({ "content-length": String(MAX_HOOK_BODY_BYTES + 1) }),
      body: "",
    });
    expect(declared.status).toBe(413);
    expect(received).toEqual([]);
  });

  it("counts a chunked body as it arrives: over the cap is 413, and the port keeps answering", async () => {
    const { url, received } = await endpoint();
    const over = await send(url, { ...push(), body: MAX_HOOK_BODY_BYTES / (1024 * 1024) + 1 });
    expect(over.status).toBe(413);
    expect(over.json).toMatchObject({ kind: "Status", reason: "RequestEntityTooLarge" });
    expect((await send(url, push({ "x-hub-signature-256": signed(PUSH) }))).status).toBe(202);
    expect(received).toHaveLength(1);
  });

  it("takes only signed deliveries (401), parses them after the check (400), and answers 202 naming the Services", async () => {
    const { url, received } = await endpoint();
    const unsigned = await send(url, push());
    expect(unsigned.status).toBe(401);
    expect(unsigned.json).toMatchObject({ kind: "Status", reason: "Unauthorized" });
    expect((await send(url, push({ "x-hub-signature-256": signed("{") }, "{"))).status).toBe(400);
    const accepted = await send(url, push({ "x-hub-signature-256": signed(PUSH) }));
    expect(accepted.status).toBe(202);
    expect(accepted.json).toMatchObject({ event: "push", matched: ["app"] });
    expect(received).toHaveLength(1);
  });

  it("answers 503 with Retry-After while no controller is ready, and acts on the redelivery of that id", async () => {
    let ready = false;
    const { url, received } = await endpoint(() => ready);
    const delivery = push({ "x-hub-signature-256": signed(PUSH), "x-github-delivery": "d-1" });
    const standby = await send(url, delivery);
    expect(standby.status).toBe(503);
    expect(standby.headers["retry-after"]).toBe("15");
    expect(standby.json).toMatchObject({ kind: "Status", reason: "ServiceUnavailable" });
    ready = true;
    expect((await send(url, delivery)).status).toBe(202);
    const again = await send(url, delivery);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ duplicate: true, delivery: "d-1" });
    expect(received).toHaveLength(1);
  });
});
