// The `Warning` header parser (RFC 7234 section 5.5, as the Kubernetes API server sends it), and the client
// handing each warning of an answer to its handlers, against a real loopback server.
import { afterEach, describe, expect, it } from "vitest";
import {
  type ApiWarning,
  type Client,
  createClient,
  NotFoundError,
  parseWarningHeaders,
  warningsOf,
} from "../../../sdk/client";
import { json, type Peer, type PeerHandler, startPeer, status } from "./peer";

const texts = (warnings: ApiWarning[]) => warnings.map((warning) => warning.text);

describe("parseWarningHeaders", () => {
  it("reads code, agent and text of the Kubernetes form", () => {
    expect(parseWarningHeaders('299 - "spec.revisionHistoryLimit: keep 2 or more"')).toEqual([
      { code: 299, agent: "-", text: "spec.revisionHistoryLimit: keep 2 or more" },
    ]);
  });

  it('undoes the quoted-pair escapes \\" and \\\\', () => {
    const [warning] = parseWarningHeaders(String.raw`299 - "say \"hi\" to C:\\dir, twice"`);
    expect(warning?.text).toBe(String.raw`say "hi" to C:\dir, twice`);
  });

  it("reads several header lines, in order", () => {
    expect(texts(parseWarningHeaders(['299 - "first"', '299 - "second"', '299 - "third"']))).toEqual([
      "first",
      "second",
      "third",
    ]);
  });

  it("splits a comma-joined line at commas outside quotes only", () => {
    const line = '299 - "a, b and c", 299 example.dev:443 "quoted \\", comma", 299 - "last"';
    expect(parseWarningHeaders(line)).toEqual([
      { code: 299, agent: "-", text: "a, b and c" },
      { code: 299, agent: "example.dev:443", text: 'quoted ", comma' },
      { code: 299, agent: "-", text: "last" },
    ]);
  });

  it("reads an optional date after the text, alone or in a list", () => {
    const date = "Wed, 25 Nov 2026 07:09:13 GMT";
    expect(parseWarningHeaders(`299 - "dated" "${date}",299 - "undated"`)).toEqual([
      { code: 299, agent: "-", text: "dated", date },
      { code: 299, agent: "-", text: "undated" },
    ]);
  });

  it("ignores empty list elements and surrounding spaces", () => {
    expect(texts(parseWarningHeaders(' ,  299 - "one" ,, 299 - "two",  '))).toEqual(["one", "two"]);
  });

  it.each([
    ["no quotes", "299 - unquoted text"],
    ["an unterminated text", '299 - "never closed'],
    ["a trailing backslash", '299 - "ends in \\'],
    ["a two-digit code", '99 - "short code"'],
    ["a missing agent", '299 "no agent"'],
    ["letters for a code", 'abc - "text"'],
    ["an unterminated date", '299 - "text" "Wed, 25 Nov'],
    ["an empty line", ""],
  ])("ignores a malformed warning: %s", (_what, line) => {
    expect(parseWarningHeaders(line)).toEqual([]);
  });

  it("keeps what came before a malformed warning in a line, drops the rest of that line only", () => {
    const lines = ['299 - "good", 299 - bad, 299 - "lost"', '299 - "next line"'];
    expect(texts(parseWarningHeaders(lines))).toEqual(["good", "next line"]);
  });

  it("drops a line with junk after a warning from there on", () => {
    expect(texts(parseWarningHeaders('299 - "kept" junk, 299 - "dropped"'))).toEqual(["kept"]);
  });

  it("parses other codes; warningsOf keeps only 299, as client-go hands to its WarningHandler", () => {
    const line = '110 - "Response is Stale", 199 cache "misc", 299 - "persistent", 214 - "transformed"';
    expect(parseWarningHeaders(line).map((warning) => warning.code)).toEqual([110, 199, 299, 214]);
    expect(texts(warningsOf(line))).toEqual(["persistent"]);
    expect(warningsOf(undefined)).toEqual([]);
  });
});

describe("the client's warning handlers", () => {
  const opened: { peers: Peer[]; clients: Client[] } = { peers: [], clients: [] };
  afterEach(async () => {
    await Promise.all(opened.clients.splice(0).map((client) => client.close()));
    await Promise.all(opened.peers.splice(0).map((peer) => peer.close()));
  });

  async function serve(handler: PeerHandler, onWarning?: (warning: ApiWarning) => void): Promise<Client> {
    const peer = await startPeer(handler);
    opened.peers.push(peer);
    const client = createClient({
      baseUrl: peer.baseUrl,
      maxRetries: 2,
      sleep: async () => undefined,
      ...(onWarning && { onWarning }),
    });
    opened.clients.push(client);
    return client;
  }

  const proxy = {
    apiVersion: "core.example.dev/v1alpha2",
    kind: "Proxy",
    metadata: { name: "edge" },
    spec: {},
  };

  it("hands every warning of an answer sent as several header lines to the client's and the call's handler", async () => {
    const seen: string[] = [];
    const client = await serve(
      (_request, response) => {
        response.setHeader("Warning", ['299 - "first, with a comma"', '299 - "second \\"quoted\\""']);
        json(response, 201, proxy);
      },
      (warning) => seen.push(`client: ${warning.text}`),
    );
    await client.proxies.create(
      { metadata: { name: "edge" }, spec: {} },
      { onWarning: (warning) => seen.push(`call: ${warning.text}`) },
    );
    expect(seen).toEqual([
      "client: first, with a comma",
      "call: first, with a comma",
      'client: second "quoted"',
      'call: second "quoted"',
    ]);
  });

  it("hands the warnings of an error answer before the call throws", async () => {
    const seen: string[] = [];
    const client = await serve((_request, response) => {
      response.setHeader("Warning", '299 - "about the missing one"');
      json(response, 404, status(404, "NotFound", 'proxies "edge" not found'));
    });
    await expect(
      client.proxies.get("edge", { onWarning: (warning) => seen.push(warning.text) }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(seen).toEqual(["about the missing one"]);
  });

  it("reports the answer that counts, not the attempts that were retried", async () => {
    const seen: string[] = [];
    const client = await serve((_request, response, index) => {
      response.setHeader("Warning", `299 - "attempt ${index}"`);
      if (index === 0) json(response, 503, status(503, "ServiceUnavailable", "try again"));
      else json(response, 200, proxy);
    });
    await client.proxies.get("edge", { onWarning: (warning) => seen.push(warning.text) });
    expect(seen).toEqual(["attempt 1"]);
  });

  it("never hands on the token or a secret value of the request, should a server echo them", async () => {
    const seen: string[] = [];
    const peer = await startPeer((_request, response) => {
      response.setHeader("Warning", '299 - "token api-token-7a6b and key sk-live-4f3e in a warning"');
      json(response, 201, proxy);
    });
    opened.peers.push(peer);
    const client = createClient({ baseUrl: peer.baseUrl, token: "api-token-7a6b" });
    opened.clients.push(client);
    const spec = { telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: "sk-live-4f3e" } } } };
    await client.proxies.create(
      { metadata: { name: "edge" }, spec },
      { onWarning: (warning) => seen.push(warning.text) },
    );
    expect(seen).toEqual(["token <redacted> and key <redacted> in a warning"]);
  });

  it("ignores a handler that throws: the call's outcome is the server's", async () => {
    const client = await serve(
      (_request, response) => {
        response.setHeader("Warning", '299 - "noted"');
        json(response, 200, proxy);
      },
      () => {
        throw new Error("handler bug");
      },
    );
    await expect(client.proxies.get("edge")).resolves.toMatchObject({ metadata: { name: "edge" } });
  });
});
