import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KINDS, type KindName } from "../../sdk/schema";
import { type Json, manifest, pathOf, startTestServer, type TestServer, warningsOf } from "../helpers/server";
import { VALID_SPECS } from "./fixtures";

/**
 * What JSON.parse would silently lose (Infinity stored as null, rounded integers, the first of two
 * duplicate keys, invalid UTF-8 as U+FFFD) is refused or named, per fieldValidation, through the real
 * HTTP server.
 */

const MODES = ["Strict", "Warn", "Ignore"] as const;
type Mode = (typeof MODES)[number];

/** A raw JSON body: `value` is the JSON of `body` with each "@N@" placeholder replaced by raw text. */
function raw(body: unknown, ...literals: string[]): string {
  return literals.reduce(
    (text, literal, index) => text.replace(`"@${index}@"`, literal),
    JSON.stringify(body),
  );
}

const proxyWithLogField = (name: string, field: string) =>
  manifest("Proxy", name, { telemetry: { accessLogs: { json: { x: field } } } });

const serviceWithPort = (name: string) =>
  manifest("Service", name, {
    ...VALID_SPECS.Service,
    template: {
      spec: { ...(VALID_SPECS.Service.template as Json).spec, backend: { protocol: "tcp", port: "@0@" } },
    },
  });

describe("strict JSON decoding", () => {
  let server: TestServer;
  let counter = 0;
  const fresh = (prefix: string) => `${prefix}-${++counter}`;
  const post = (kind: KindName, body: string, mode?: Mode) =>
    server.call("POST", `${pathOf(kind)}${mode ? `?fieldValidation=${mode}` : ""}`, { body });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  describe("a number that parses to Infinity is refused in every mode, never stored as null", () => {
    for (const mode of MODES) {
      it(`backend.port 1e400 (${mode}): 422 naming the field, what is wrong and what to use`, async () => {
        const name = fresh("inf-port");
        const reply = await post("Service", raw(serviceWithPort(name), "1e400"), mode);
        expect(reply.status).toBe(422);
        expect(reply.body.reason).toBe("Invalid");
        expect(reply.body.details).toMatchObject({ name, kind: "Service", group: KINDS.Service.group });
        expect(reply.body.details.causes).toEqual([
          {
            reason: "FieldValueInvalid",
            field: "spec.template.spec.backend.port",
            message:
              "spec.template.spec.backend.port: 1e400 is not a finite number; use an integer from 1 to 65535",
          },
        ]);
        expect(reply.text).not.toContain("fraction");
        expect((await server.call("GET", pathOf("Service", name))).status).toBe(404);
      });

      it(`a free-form field -1e999 (${mode}): 422, nothing stored`, async () => {
        const name = fresh("inf-json");
        const reply = await post("Proxy", raw(proxyWithLogField(name, "@0@"), "-1e999"), mode);
        expect(reply.status).toBe(422);
        expect(reply.body.details.causes).toEqual([
          expect.objectContaining({
            field: "spec.telemetry.accessLogs.json.x",
            message: expect.stringMatching(
              /^spec\.telemetry\.accessLogs\.json\.x: -1e999 is not a finite number; use /,
            ),
          }),
        ]);
        expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
      });
    }

    it("does not quote a number written into a secret field", async () => {
      const spec = VALID_SPECS.Service as Json;
      const source = { oci: { ...spec.source.oci, credentials: { username: "u", password: "@0@" } } };
      const body = raw(manifest("Service", fresh("secret"), { ...spec, source }), "31415926535e999");
      const reply = await post("Service", body);
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes[0].message).toMatch(
        /^spec\.source\.oci\.credentials\.password: the value is not a finite number/,
      );
      expect(reply.text).not.toContain("31415926535");
    });

    it("cuts a wall of digits in the message and names each field once", async () => {
      const name = fresh("inf-many");
      const digits = `1${"0".repeat(400)}`;
      const body = raw(
        manifest("Proxy", name, { telemetry: { accessLogs: { json: { a: "@0@", b: ["@1@"] } } } }),
        digits,
        "1e309",
      );
      const reply = await post("Proxy", body);
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes.map((cause: Json) => cause.field)).toEqual([
        "spec.telemetry.accessLogs.json.a",
        "spec.telemetry.accessLogs.json.b[0]",
      ]);
      expect(reply.body.details.causes[0].message).toContain("(401 characters) is not a finite number");
      expect(reply.text.length).toBeLessThan(2000);
    });
  });

  describe("an integer beyond ±2^53-1, which cannot be kept exactly", () => {
    const unsafe = "9007199254740993";

    it("Strict: 422 with one cause per field, saying what is wrong and how to fix it", async () => {
      const name = fresh("unsafe");
      const body = raw(
        manifest("Proxy", name, { telemetry: { accessLogs: { json: { x: "@0@", y: "@1@" } } } }),
        unsafe,
        "-18446744073709551616",
      );
      const reply = await post("Proxy", body, "Strict");
      expect(reply.status).toBe(422);
      expect(reply.body.details.causes).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.telemetry.accessLogs.json.x",
          message:
            "spec.telemetry.accessLogs.json.x: 9007199254740993 cannot be represented exactly (integers beyond " +
            "±9007199254740991 lose precision); use a smaller number or a string",
        },
        expect.objectContaining({ field: "spec.telemetry.accessLogs.json.y" }),
      ]);
      expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
    });

    it("Warn (the default): created, with a Warning naming the field and the value it became", async () => {
      for (const mode of ["Warn", undefined] as const) {
        const name = fresh("unsafe");
        const reply = await post("Proxy", raw(proxyWithLogField(name, "@0@"), unsafe), mode);
        expect(reply.status).toBe(201);
        expect(warningsOf(reply)).toEqual([
          '299 - "spec.telemetry.accessLogs.json.x: 9007199254740993 cannot be represented exactly and is read ' +
            'as 9007199254740992; use an integer from -9007199254740991 to 9007199254740991 or a string"',
        ]);
        expect(reply.body.spec.telemetry.accessLogs.json.x).toBe(9007199254740992);
      }
    });

    it("Ignore: created without a warning", async () => {
      const reply = await post("Proxy", raw(proxyWithLogField(fresh("unsafe"), "@0@"), unsafe), "Ignore");
      expect(reply.status).toBe(201);
      expect(warningsOf(reply)).toEqual([]);
    });

    it("Strict on PUT: 422 names the object of the URL", async () => {
      const name = fresh("unsafe-put");
      const created = (await post("Proxy", JSON.stringify(manifest("Proxy", name, {})))).body;
      const body = raw({ ...created, spec: { telemetry: { accessLogs: { json: { x: "@0@" } } } } }, unsafe);
      const reply = await server.call("PUT", `${pathOf("Proxy", name)}?fieldValidation=Strict`, { body });
      expect(reply.status).toBe(422);
      expect(reply.body.details).toMatchObject({ name, kind: "Proxy" });
    });
  });

  describe("duplicate keys", () => {
    const withDuplicateLabel = (name: string) =>
      JSON.stringify(manifest("Proxy", name, {}, { labels: { team: "first" } })).replace(
        '"team":"first"',
        '"team":"first","team":"second"',
      );

    it('Strict: 400 "strict decoding error: duplicate field", as Kubernetes answers', async () => {
      const name = fresh("dup");
      const reply = await post("Proxy", withDuplicateLabel(name), "Strict");
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({
        kind: "Status",
        reason: "BadRequest",
        code: 400,
        message: 'strict decoding error: duplicate field "metadata.labels.team"',
      });
      expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
    });

    it("Strict: every duplicate is named, nested ones with their full path", async () => {
      const body = JSON.stringify(manifest("Proxy", fresh("dup"), { shutdown: { drainTimeout: "1s" } }))
        .replace('"drainTimeout":"1s"', '"drainTimeout":"1s","drainTimeout":"2s"')
        .replace('"kind":"Proxy"', '"kind":"Proxy","kind":"Proxy"');
      const reply = await post("Proxy", body, "Strict");
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe(
        'strict decoding error: duplicate field "kind", duplicate field "spec.shutdown.drainTimeout"',
      );
    });

    it("Warn (the default): created, the last value wins, a Warning per duplicate", async () => {
      for (const mode of ["Warn", undefined] as const) {
        const reply = await post("Proxy", withDuplicateLabel(fresh("dup")), mode);
        expect(reply.status).toBe(201);
        expect(reply.body.metadata.labels).toEqual({ team: "second" });
        expect(warningsOf(reply)).toEqual(['299 - "duplicate field \\"metadata.labels.team\\""']);
      }
    });

    it("Warn: decoding warnings come before admission's unknown-field warnings", async () => {
      const body = withDuplicateLabel(fresh("dup")).replace('"spec":{}', '"spec":{"bogus":1}');
      const reply = await post("Proxy", body);
      expect(reply.status).toBe(201);
      expect(warningsOf(reply)).toEqual([
        '299 - "duplicate field \\"metadata.labels.team\\""',
        '299 - "unknown field \\"spec.bogus\\""',
      ]);
    });

    it("Ignore: created, the last value wins, no warning", async () => {
      const reply = await post("Proxy", withDuplicateLabel(fresh("dup")), "Ignore");
      expect(reply.status).toBe(201);
      expect(reply.body.metadata.labels).toEqual({ team: "second" });
      expect(warningsOf(reply)).toEqual([]);
    });

    it("in a merge patch: the paths are the patch's", async () => {
      const name = fresh("dup-patch");
      await post("Proxy", JSON.stringify(manifest("Proxy", name, {})));
      const patch = '{"metadata":{"labels":{"team":"a","team":"b"}}}';
      const path = pathOf("Proxy", name);
      const headers = { contentType: "application/merge-patch+json" };
      const strict = await server.call("PATCH", `${path}?fieldValidation=Strict`, {
        body: patch,
        ...headers,
      });
      expect(strict.status).toBe(400);
      expect(strict.body.message).toBe('strict decoding error: duplicate field "metadata.labels.team"');
      const warned = await server.call("PATCH", path, { body: patch, ...headers });
      expect(warned.status).toBe(200);
      expect(warned.body.metadata.labels).toEqual({ team: "b" });
      expect(warningsOf(warned)).toEqual(['299 - "duplicate field \\"metadata.labels.team\\""']);
    });
  });

  it("nesting hidden behind a duplicate key is still refused as too deep, not a crash", async () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const body = JSON.stringify(manifest("Proxy", fresh("deep"), {})).replace(
      '"spec":{}',
      `"spec":${deep},"spec":{}`,
    );
    const reply = await post("Proxy", body);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/^the request body is nested more than \d+ levels deep$/);
  });

  it("in a JSON patch, a lossy number is named by its place in the patch document", async () => {
    const name = fresh("json-patch");
    await post("Proxy", JSON.stringify(manifest("Proxy", name, {})));
    const patch = '[{"op":"add","path":"/spec/telemetry","value":{"accessLogs":{"json":{"x":1e400}}}}]';
    const reply = await server.call("PATCH", pathOf("Proxy", name), {
      body: patch,
      contentType: "application/json-patch+json",
    });
    expect(reply.status).toBe(422);
    expect(reply.body.details).toMatchObject({ name, kind: "Proxy" });
    expect(reply.body.details.causes).toEqual([
      expect.objectContaining({ field: "[0].value.accessLogs.json.x" }),
    ]);
    expect((await server.call("GET", pathOf("Proxy", name))).body.spec.telemetry).toBeUndefined();
  });

  describe("invalid UTF-8", () => {
    const send = async (body: Buffer, mode?: Mode) => {
      const response = await request(
        `${server.url}${pathOf("Proxy")}${mode ? `?fieldValidation=${mode}` : ""}`,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        },
      );
      return { status: response.statusCode, body: (await response.body.json()) as Json };
    };
    /** A Proxy whose annotation value holds `bytes` at a known offset. */
    const withBytes = (name: string, before: string, bytes: number[]) => {
      const [head, tail] = JSON.stringify(manifest("Proxy", name, {}, { annotations: { note: "@" } })).split(
        "@",
      );
      const prefix = Buffer.from(`${head}${before}`, "utf8");
      return {
        body: Buffer.concat([prefix, Buffer.from(bytes), Buffer.from(tail as string, "utf8")]),
        at: prefix.length,
      };
    };

    for (const mode of [...MODES, undefined]) {
      it(`is refused with 400 and the byte offset (${mode ?? "default"}), nothing stored`, async () => {
        const name = fresh("utf8");
        const { body, at } = withBytes(name, "caf", [0xff, 0x65]);
        const reply = await send(body, mode);
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({
          reason: "BadRequest",
          message: `the request body is not valid UTF-8 (at byte ${at})`,
        });
        expect((await server.call("GET", pathOf("Proxy", name))).status).toBe(404);
      });
    }

    it("points past well-formed text, a literal U+FFFD included, to the first bad sequence", async () => {
      // "é" (2 bytes), a real U+FFFD (3 bytes), then a truncated 3-byte sequence (E2 82) before "x".
      const { body, at } = withBytes(fresh("utf8"), "é\uFFFD", [0xe2, 0x82, 0x78]);
      const reply = await send(body);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe(`the request body is not valid UTF-8 (at byte ${at})`);
    });

    it("an overlong encoding and a UTF-16 surrogate encoded in UTF-8 are refused too", async () => {
      for (const bytes of [
        [0xc0, 0xaf],
        [0xed, 0xa0, 0x80],
      ]) {
        const { body, at } = withBytes(fresh("utf8"), "", bytes);
        expect((await send(body)).body.message).toBe(`the request body is not valid UTF-8 (at byte ${at})`);
      }
    });
  });

  describe("valid bodies pass unchanged", () => {
    for (const mode of [...MODES, undefined]) {
      it(`safe integers, 1e300, fractions and Unicode (${mode ?? "default"})`, async () => {
        const name = fresh("valid");
        const values = {
          max: "@0@",
          min: "@1@",
          huge: "@2@",
          tiny: "@3@",
          fraction: "@4@",
          negativeZero: "@5@",
          text: "snow ☃, emoji 😀, a real \uFFFD, escaped \\u00e9",
          nested: [{ a: 1 }, { a: 2 }],
        };
        const body = raw(
          manifest(
            "Proxy",
            name,
            { telemetry: { accessLogs: { json: values } } },
            { annotations: { note: "日本, é" } },
          ),
          "9007199254740991",
          "-9007199254740991",
          "1e300",
          "5e-324",
          "0.1",
          "-0",
        );
        const reply = await post("Proxy", body, mode);
        expect(reply.body.message).toBeUndefined();
        expect(reply.status).toBe(201);
        expect(warningsOf(reply)).toEqual([]);
        expect(reply.body.spec.telemetry.accessLogs.json).toEqual({
          ...values,
          max: 9007199254740991,
          min: -9007199254740991,
          huge: 1e300,
          tiny: 5e-324,
          fraction: 0.1,
          negativeZero: 0,
        });
        expect(reply.body.metadata.annotations).toEqual({ note: "日本, é" });
        const read = await server.call("GET", pathOf("Proxy", name));
        expect(read.body.spec.telemetry.accessLogs.json).toEqual(reply.body.spec.telemetry.accessLogs.json);
      });
    }

    it("the same key in different objects is not a duplicate", async () => {
      const body = JSON.stringify(
        manifest("Proxy", fresh("valid"), { telemetry: { accessLogs: { json: { name: { name: 1 } } } } }),
      );
      const reply = await post("Proxy", body, "Strict");
      expect(reply.status).toBe(201);
    });
  });
});
