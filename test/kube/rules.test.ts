import mergePatch from "json-merge-patch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMISSION_WEBHOOK } from "../../deploy/identities";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { type KindName, RULES } from "../../sdk/schema";
import { CEL_RULES } from "../../sdk/schema/cel";
import {
  call,
  type Json,
  manifest,
  pathOf,
  type Reply,
  startTestServer,
  type TestServer,
} from "../helpers/server";
import { VALID_SPECS } from "../policy/fixtures";
import { FAILING_CASES } from "../policy/rule-cases";
import { RULE_DIFFERENCES } from "./rule-differences";

/**
 * Every rule of the schema's catalog on both servers: its failing case (test/policy/rule-cases.ts) sent to
 * kube-apiserver with the CRDs and the admission webhook, and to the local server. An error is refused by
 * both with the same causes, word for word: the webhook runs the local server's admission code, before the
 * CRD's own schema and CEL rules (test/kube/cel.test.ts tests those alone). A warning is accepted by both
 * with the same Warning texts. Differences are data, with their reasons (rule-differences.ts).
 */

const WEBHOOK_DENIED = `admission webhook "${ADMISSION_WEBHOOK}" denied the request: `;
const MERGE = "application/merge-patch+json";
const CASES = Object.entries(FAILING_CASES).map(([id, failing]) => ({
  id,
  ...failing,
  severity: RULES.find((rule) => rule.id === id)?.severity,
  difference: RULE_DIFFERENCES[id],
}));
const ERRORS = CASES.filter(({ severity, difference }) => severity === "error" && !difference?.unknownField);
const WARNINGS = CASES.filter(({ severity }) => severity === "warning");
const UNKNOWN_FIELDS = CASES.filter(({ difference }) => difference?.unknownField !== undefined);
/** The change rules' examples (CEL transition rules on `oldSelf`): a valid object, then an update. */
const CHANGES = CEL_RULES.flatMap((cel, index) =>
  cel.example.previous === undefined ? [] : [{ ...cel, name: `${cel.id}-${index}` }],
);

/** `Kind "name": <field>: <text>` (a policy message) as field and text. */
function parseMessage(message: string): { field: string; text: string } {
  const match = /^[A-Za-z]+ "[^"]*": ([^ ]+?): (.*)$/s.exec(message);
  if (match === null) throw new Error(`not a rule message: ${message}`);
  return { field: match[1] as string, text: match[2] as string };
}

/** The texts of `Warning: 299 - "<text>"` headers. */
function warningTexts(reply: Reply): string[] {
  const header = reply.headers.warning;
  return (header === undefined ? [] : [header].flat()).map((value) => {
    const match = /^299 - "(.*)"$/s.exec(value);
    if (match === null) throw new Error(`not a 299 warning: ${value}`);
    return (match[1] as string).replace(/\\(.)/g, "$1");
  });
}

const causesOf = (reply: Reply): { field: string; message: string }[] =>
  (reply.body?.details?.causes ?? []).map(({ field, message }: Json) => ({ field, message }));
const fieldsOf = (reply: Reply) => [...new Set(causesOf(reply).map(({ field }) => field))].sort();

describe("every rule of the catalog on kube-apiserver (CRDs and admission webhook) and the local server", () => {
  let kube: KubeApi;
  let local: TestServer;
  const counts = { refused: 0, warned: 0, differing: 0 };

  /** The same request to both servers: kube-apiserver first, then the local server. */
  const both = async (method: "POST" | "PATCH", url: string, body: unknown) => {
    const contentType = method === "PATCH" ? MERGE : undefined;
    const auth = { authorization: `Bearer ${kube.token}` };
    const onKube = await call(kube.url, method, url, { body, contentType }, auth, kube.dispatcher);
    const onLocal = await local.call(method, url, { body, contentType });
    return { onKube, onLocal };
  };
  const create = (kind: KindName, name: string, spec: unknown, query = "") =>
    both("POST", `${pathOf(kind)}${query}`, manifest(kind, name, spec));

  beforeAll(async () => {
    [kube, local] = await Promise.all([startKubeApi({ drainProxies: false }), startTestServer()]);
  });
  afterAll(async () => {
    console.log(
      `rules: ${counts.refused} refused by both with the same causes, ${counts.warned} warned by both, ${counts.differing} answered differently as listed in rule-differences.ts`,
    );
    await Promise.all([kube?.close(), local?.close()]);
  });

  it("has a failing case for every rule that checks a spec, and an update for every change rule", () => {
    const specRules = RULES.filter((rule) => !rule.change).map(({ id }) => id);
    expect(CASES.map(({ id }) => id).sort()).toEqual([...specRules].sort());
    expect(CASES.every(({ severity }) => severity !== undefined)).toBe(true);
    const changeRules = RULES.filter((rule) => rule.change).map(({ id }) => id);
    expect([...new Set(CHANGES.map(({ id }) => id))].sort()).toEqual([...changeRules].sort());
    // Every difference belongs to a case.
    for (const id of Object.keys(RULE_DIFFERENCES)) expect(FAILING_CASES, id).toHaveProperty([id]);
  });

  /** The webhook refused it with the local server's Status: the same causes and message. */
  const expectSameRefusal = (onKube: Reply, onLocal: Reply) => {
    expect([onKube.status, onLocal.status], `${onKube.text}\n${onLocal.text}`).toEqual([422, 422]);
    expect(onKube.body.message).toBe(`${WEBHOOK_DENIED}${onLocal.body.message}`);
    expect(causesOf(onKube)).toEqual(causesOf(onLocal));
  };

  it.each(ERRORS)(
    "$id ($kind): refused by both with the same causes",
    async ({ id, kind, spec, messages }) => {
      const { onKube, onLocal } = await create(kind, `rule-${id}`, spec);
      expectSameRefusal(onKube, onLocal);
      const localFields = fieldsOf(onLocal);
      for (const { field } of messages.map(parseMessage)) expect(localFields).toContain(field);
      counts.refused++;
    },
  );

  it.each(WARNINGS)(
    "$id ($kind): accepted by both with the same warnings",
    async ({ id, kind, spec, messages }) => {
      const { onKube, onLocal } = await create(kind, `rule-${id}`, spec);
      expect([onKube.status, onLocal.status], `${onKube.text}\n${onLocal.text}`).toEqual([201, 201]);
      expect(warningTexts(onKube)).toEqual(warningTexts(onLocal));
      expect(warningTexts(onLocal)).toEqual(
        messages.map((message) => {
          const { field, text } = parseMessage(message);
          return `${field}: ${text}`;
        }),
      );
      counts.warned++;
    },
  );

  it.each(UNKNOWN_FIELDS)(
    "$id ($kind): dropped with the same warning by both by default; refused by both under Strict",
    async ({ id, kind, spec, messages, difference }) => {
      const { field } = parseMessage(messages[0] as string);
      const warned = await create(kind, `rule-${id}`, spec);
      expect([warned.onKube.status, warned.onLocal.status]).toEqual([201, 201]);
      expect(warningTexts(warned.onKube)).toEqual([`unknown field "${field}"`]);
      expect(warningTexts(warned.onLocal)).toEqual(warningTexts(warned.onKube));

      const strict = await create(kind, `rule-${id}-strict`, spec, "?fieldValidation=Strict");
      expect([strict.onKube.status, strict.onLocal.status]).toEqual([
        difference?.unknownField.strictStatus,
        422,
      ]);
      expect(strict.onKube.body.message).toContain(`unknown field "${field}"`);
      expect(fieldsOf(strict.onLocal)).toEqual([field]);
      counts.differing++;
    },
  );

  it.each(CHANGES)("$id ($kind, $name): the update is refused by both with the same causes", async (cel) => {
    const { kind, name, example } = cel;
    const spec = mergePatch.apply(structuredClone(VALID_SPECS[kind]), example.previous ?? {});
    const created = await create(kind, name, spec);
    expect([created.onKube.status, created.onLocal.status]).toEqual([201, 201]);
    const { onKube, onLocal } = await both("PATCH", pathOf(kind, name), { spec: example.self });
    expectSameRefusal(onKube, onLocal);
    counts.refused++;
  });
});
