import { once } from "node:events";
import { connect } from "node:net";
import { Client, type Dispatcher, Pool } from "undici";
import { describe, expect, it } from "vitest";
import { manifest, pathOf } from "../helpers/server";
import { spawnServer } from "../helpers/server-process";

const JSON_TYPE = { "content-type": "application/json" };
const PROXIES = pathOf("Proxy");

interface FuzzCase {
  name: string;
  expected: number;
  request(index: number): Dispatcher.RequestOptions;
}

const post = (body: string | Buffer, headers: Record<string, string> = JSON_TYPE) =>
  ({ method: "POST", path: PROXIES, body, headers }) as const;

/**
 * Requests a client may send on a keep-alive connection, most of them malformed, each with its whole body:
 * the server must answer each and keep the connection. Left out: a body refused before it is read (413,
 * the server closes), and GET or DELETE with a body (undici itself does not reuse such a connection).
 */
const CASES: readonly FuzzCase[] = [
  {
    name: "valid create",
    expected: 201,
    request: (i) => post(JSON.stringify(manifest("Proxy", `p-${i}`, {}))),
  },
  { name: "malformed JSON", expected: 400, request: () => post('{"apiVersion": ') },
  { name: "empty JSON body", expected: 400, request: () => post("") },
  { name: "invalid UTF-8", expected: 400, request: () => post(Buffer.from([0x7b, 0xff, 0x7d])) },
  { name: "__proto__ key", expected: 400, request: () => post('{"metadata": {"__proto__": {"x": 1}}}') },
  { name: "nested too deep", expected: 400, request: () => post(`${"[".repeat(2000)}${"]".repeat(2000)}`) },
  {
    name: "invalid spec",
    expected: 422,
    request: (i) =>
      post(JSON.stringify(manifest("Proxy", `bad-${i}`, { shutdown: { drainTimeout: "soon" } }))),
  },
  { name: "text/plain body", expected: 415, request: () => post("hello", { "content-type": "text/plain" }) },
  {
    name: "malformed YAML apply",
    expected: 400,
    request: () => ({
      method: "PATCH",
      path: `${pathOf("Proxy", "y")}?fieldManager=fuzz`,
      body: "metadata: [unclosed",
      headers: { "content-type": "application/apply-patch+yaml" },
    }),
  },
  {
    name: "body on an unknown path",
    expected: 400,
    request: () => ({ method: "POST", path: "/nope", body: "{", headers: JSON_TYPE }),
  },
  {
    name: "bad query parameter",
    expected: 400,
    request: () => ({ method: "GET", path: `${PROXIES}?limit=lots` }),
  },
  { name: "list", expected: 200, request: () => ({ method: "GET", path: `${PROXIES}?limit=1` }) },
];

async function send(dispatcher: Dispatcher, fuzz: FuzzCase, index: number) {
  const response = await dispatcher.request(fuzz.request(index));
  await response.body.text();
  return { status: response.statusCode, closes: response.headers.connection === "close" };
}

describe("keep-alive connections, on the server as a process", () => {
  it("stay open through malformed requests sent one after another", async () => {
    const client = new Client(await spawnServer().url);
    let connections = 0;
    client.on("connect", () => connections++);
    try {
      for (let index = 0; index < 3 * CASES.length; index++) {
        const fuzz = CASES[index % CASES.length] as FuzzCase;
        const { status, closes } = await send(client, fuzz, index);
        expect({ case: fuzz.name, status, closes }).toEqual({
          case: fuzz.name,
          status: fuzz.expected,
          closes: false,
        });
      }
      expect(connections).toBe(1);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("answer every request of a concurrent fuzz pass over pipelined connections, none reset", async () => {
    const pool = new Pool(await spawnServer().url, { connections: 4, pipelining: 8 });
    let connections = 0;
    pool.on("connect", () => connections++);
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 600 }, async (_, index) => {
          const fuzz = CASES[(index * 7) % CASES.length] as FuzzCase;
          try {
            const { status } = await send(pool, fuzz, index);
            return status === fuzz.expected ? "ok" : `${fuzz.name}: ${status}`;
          } catch (error) {
            return `${fuzz.name}: ${(error as { code?: string }).code ?? String(error)}`;
          }
        }),
      );
      expect(outcomes.filter((outcome) => outcome !== "ok")).toEqual([]);
      expect(connections).toBeLessThanOrEqual(4);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it("answer a request pipelined behind a malformed one on the same connection", async () => {
    const { hostname, port } = new URL(await spawnServer().url);
    const socket = connect(Number(port), hostname);
    await once(socket, "connect");
    let received = "";
    // Settles once the second answer arrives, or the server closes the connection before it does.
    const settled = new Promise<void>((resolve) => {
      socket.on("data", (chunk) => {
        received += chunk;
        if (received.includes("HTTP/1.1 200")) resolve();
      });
      socket.on("close", () => resolve());
    });
    const malformed = '{"apiVersion": ';
    // Both requests in one write, as a pipelining client sends them; the second is only answered if the
    // server keeps the connection after refusing the first.
    socket.write(
      `POST ${PROXIES} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${malformed.length}\r\n\r\n${malformed}` +
        "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    await settled;
    socket.destroy();
    expect(received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 400", "HTTP/1.1 200"]);
  }, 60_000);
});
