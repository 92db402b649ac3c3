import { describe, expect, it } from "vitest";
import type { AnyObject } from "../../../provider/kinds";
import type { ObjectInputs } from "../../../provider/state";
import { PostPut } from "../../../provider/write/post-put";
import { ServerSideApply } from "../../../provider/write/server-side-apply";
import { type Accessor, NameTaken, type WriteStrategy } from "../../../provider/write/types";
import { withCreateToken } from "../../../sdk/client";
import { apiErrorFromResponse } from "../../../sdk/errors";

const TOKEN = "token-of-this-create";
const inputs: ObjectInputs = { metadata: { name: "edge" }, spec: {} };

const status = (code: number, reason: string) =>
  apiErrorFromResponse(code, { kind: "Status", reason, code }, { kind: "Proxy", name: "edge" });

/** An object stored under the name, carrying `token` (or none). */
function storedObject(token?: string): AnyObject {
  const object = {
    apiVersion: "core.example.dev/v1alpha2",
    kind: "Proxy",
    metadata: { name: "edge", uid: "uid-stored", resourceVersion: "7" },
    spec: {},
  } as AnyObject;
  return token === undefined ? object : withCreateToken(object, token);
}

/** A client of one kind whose writes fail with `failure` and whose GET finds `stored` (or fails with `lookup`). */
function fakeAccessor(options: { failure: Error; stored?: AnyObject; lookup?: Error }) {
  const calls: string[] = [];
  const write =
    (method: string) =>
    async (..._args: unknown[]) => {
      calls.push(method);
      throw options.failure;
    };
  const accessor = {
    create: write("POST"),
    apply: write("APPLY"),
    replace: write("PUT"),
    get: async () => {
      calls.push("GET");
      if (options.lookup) throw options.lookup;
      if (options.stored === undefined) throw status(404, "NotFound");
      return options.stored;
    },
  } as unknown as Accessor;
  return { accessor, calls };
}

const strategies: [string, (accessor: Accessor) => WriteStrategy][] = [
  ["POST/PUT", (accessor) => new PostPut({ kind: "Proxy", accessor })],
  ["server-side apply", (accessor) => new ServerSideApply({ kind: "Proxy", accessor }, false)],
];

describe("the write strategies", () => {
  describe("POST/PUT", () => {
    const strategy = (accessor: Accessor) => new PostPut({ kind: "Proxy", accessor });

    it("takes a 409 AlreadyExists as another's object, without looking (the client looked by the token)", async () => {
      const { accessor, calls } = fakeAccessor({
        failure: status(409, "AlreadyExists"),
        stored: storedObject(TOKEN),
      });
      await expect(strategy(accessor).create(inputs, TOKEN, {})).rejects.toBeInstanceOf(NameTaken);
      expect(calls).toEqual(["POST"]);
    });

    it("recognises its own unconfirmed create behind a dry run's AlreadyExists by the token", async () => {
      const own = storedObject(TOKEN);
      const { accessor } = fakeAccessor({ failure: status(409, "AlreadyExists"), stored: own });
      await expect(strategy(accessor).create(inputs, TOKEN, { dryRun: true })).resolves.toBe(own);
    });

    it("takes an object without the token behind a dry run's AlreadyExists as another's", async () => {
      const { accessor } = fakeAccessor({
        failure: status(409, "AlreadyExists"),
        stored: storedObject("other"),
      });
      await expect(strategy(accessor).create(inputs, TOKEN, { dryRun: true })).rejects.toBeInstanceOf(
        NameTaken,
      );
    });
  });

  // Server-side apply creates by POST as well: no apply only creates (see test/provider/ssa.test.ts for the
  // step that makes the POST's managedFields entry the apply's).
  describe.each(strategies)("%s create", (_name, strategy) => {
    it("takes a 409 AlreadyExists as another's object, having written nothing else", async () => {
      const { accessor, calls } = fakeAccessor({
        failure: status(409, "AlreadyExists"),
        stored: storedObject(),
      });
      await expect(strategy(accessor).create(inputs, TOKEN, {})).rejects.toBeInstanceOf(NameTaken);
      expect(calls).toEqual(["POST"]);
    });

    it("fails a refused create at once, without a lookup", async () => {
      const refusal = status(422, "Invalid");
      const { accessor, calls } = fakeAccessor({ failure: refusal, stored: storedObject(TOKEN) });
      await expect(strategy(accessor).create(inputs, TOKEN, {})).rejects.toBe(refusal);
      expect(calls).toEqual(["POST"]);
    });
  });

  describe.each(strategies)("%s update", (_name, strategy) => {
    it("writes only the object it manages: another uid under the name is an error, not a target", async () => {
      const { accessor, calls } = fakeAccessor({ failure: new Error("unused"), stored: storedObject() });
      const error = await strategy(accessor)
        .update(inputs, { uid: "uid-managed" }, {})
        .catch((failure: Error) => failure);
      expect((error as Error).message).toContain("is not the object this stack manages");
      expect(calls).toEqual(["GET"]);
    });
  });
});
