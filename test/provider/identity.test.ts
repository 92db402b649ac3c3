// The provider only ever touches the object it created: deletes and updates name its uid, a create recognises
// its own object by its token, and an unknown outcome is kept in state rather than forgotten.
import { describe, expect, it } from "vitest";
import type { ObjectOutputs } from "../../provider/state";
import { CREATE_TOKEN_ANNOTATION } from "../../sdk/client";
import {
  checked,
  configureProvider,
  created,
  declared,
  type Outputs,
  type ProxyHandler,
  providerOf,
  rejection,
  statusBody,
  useProxiedServer,
} from "../helpers/provider";
import { pathOf } from "../helpers/server";
import { digestService, REPO } from "./fixtures";

const SKIP = { skip: true };
const unavailable = { status: 503, body: statusBody(503, "ServiceUnavailable", "injected") };

describe("the object this resource manages, and no other", () => {
  const env = useProxiedServer();
  const direct = () => configureProvider({ "exampledev:baseUrl": env.server.url });

  /** A Service created by the provider, then deleted and created again under its name by someone else. */
  async function replacedOutOfBand(name: string) {
    await direct();
    const { outs: state } = await created(
      "Service",
      declared(name, digestService(REPO), { metadata: { name }, await: SKIP }),
    );
    await env.api.services.delete(name);
    const other = await env.api.services.create({ metadata: { name }, spec: digestService(REPO) });
    return { state, other };
  }

  it("delete leaves alone another object that took the name: the uid precondition fails, and ours is gone", async () => {
    const { state, other } = await replacedOutOfBand("taken-over");
    const seen = await env.through();
    await providerOf("Service").delete(state.metadata.name, state);
    expect(seen.seen("DELETE", pathOf("Service")).map((e) => [e.status, JSON.parse(e.requestBody)])).toEqual([
      [409, { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid: state.metadata.uid } }],
    ]);
    expect((await env.api.services.get("taken-over")).metadata.uid).toBe(other.metadata.uid);
  });

  it("update refuses to write over another object that took the name, and says how to go on", async () => {
    const { state, other } = await replacedOutOfBand("updated-over");
    const news = await checked(
      "Service",
      declared("updated-over", digestService(REPO, "v2"), { metadata: { name: "updated-over" } }),
      state,
    );
    const error = await rejection(providerOf("Service").update("updated-over", state, news));
    expect(error.message).toContain(
      'Service "updated-over" on the server is not the object this stack manages',
    );
    expect(error.message).toContain("pulumi refresh");
    const stored = await env.api.services.get("updated-over");
    expect(stored.metadata).toMatchObject({ uid: other.metadata.uid, generation: 1 });
    expect(stored.spec.template).toEqual(other.spec.template);
  });

  it("create treats a 409 after a retried POST as someone else's when the token differs, even with the same spec", async () => {
    await direct();
    await env.api.services.create({ metadata: { name: "theirs" }, spec: digestService(REPO) });
    let failed = false;
    await env.through((request, forward) => {
      if (request.method !== "POST" || failed) return forward();
      failed = true;
      return Promise.resolve(unavailable);
    });
    const error = await rejection(
      created(
        "Service",
        declared("mine", digestService(REPO), { metadata: { name: "theirs" }, await: SKIP }),
      ),
    );
    expect(error.message).toContain(
      'Service "theirs" already exists on the server and is not managed by this stack',
    );
    expect((await env.api.services.get("theirs")).metadata.annotations).toBeUndefined();
  });

  describe("a create whose outcome is unknown (answers lost, lookups failing)", () => {
    let lookupsFail = true;
    const lossy: ProxyHandler = async (request, forward) => {
      if (request.method === "POST") {
        await forward();
        return { status: 0, reset: true };
      }
      return lookupsFail ? { status: 0, reset: true } : forward();
    };

    it("is kept in state with its token and no uid; update finishes it, delete finds it by the token", async () => {
      lookupsFail = true;
      await env.through(lossy);
      const inputs = await checked("Proxy", declared("edge", {}, { metadata: { name: "unconfirmed" } }));
      const error = await rejection(providerOf("Proxy").create(inputs));
      expect(error.message).toContain('Proxy "unconfirmed" may have been created');
      const state = error.properties as ObjectOutputs;
      expect(error.id).toBe("unconfirmed");
      expect(state.metadata.uid).toBeUndefined();
      const stored = await env.api.proxies.get("unconfirmed");
      expect(stored.metadata.annotations?.[CREATE_TOKEN_ANNOTATION]).toBe(state.createToken);

      // The next up: the engine updates a resource with init errors; the create is finished, nothing duplicated.
      lookupsFail = false;
      const { outs } = await providerOf("Proxy").update("unconfirmed", state, inputs);
      expect((outs as Outputs).metadata.uid).toBe(stored.metadata.uid);

      // A destroy of the unconfirmed state finds the object by its token, and deletes that uid.
      await providerOf("Proxy").delete("unconfirmed", state);
      expect((await env.server.call("GET", pathOf("Proxy", "unconfirmed"))).status).toBe(404);
    });

    it("whose object never reached the server: update creates it, refresh and delete find nothing", async () => {
      await env.through(async (request, forward) =>
        request.method === "POST"
          ? { status: 0, reset: true }
          : lookupsFail
            ? { status: 0, reset: true }
            : forward(),
      );
      lookupsFail = true;
      const inputs = await checked("Proxy", declared("edge", {}, { metadata: { name: "never-stored" } }));
      const state = (await rejection(providerOf("Proxy").create(inputs))).properties as ObjectOutputs;
      lookupsFail = false;
      expect(await providerOf("Proxy").read("never-stored", state)).toEqual({ id: "", props: {} });
      await providerOf("Proxy").delete("never-stored", state);

      await direct();
      const { outs } = await providerOf("Proxy").update("never-stored", state, inputs);
      const stored = await env.api.proxies.get("never-stored");
      expect((outs as Outputs).metadata.uid).toBe(stored.metadata.uid);
      expect(stored.metadata.annotations?.[CREATE_TOKEN_ANNOTATION]).toBe(state.createToken);
    });
  });

  it("a delete-before-replace whose new spec the API would refuse fails in diff, naming the field", async () => {
    await direct();
    // Named: an unnamed object's replacement takes the next generated name and is created first, deleting nothing.
    const named = { metadata: { name: "doomed-rev" } };
    const { outs: state } = await created("ServiceRevision", declared("rev", revision("30s"), named));
    // With deferValidationToPolicies, check leaves the spec error to the pack: diff is the last stop.
    const news = { ...state, spec: revision("later") };
    const error = await rejection(providerOf("ServiceRevision").diff(state.metadata.name, state, news));
    expect(error.message).toContain(
      `ServiceRevision "${state.metadata.name}" would be replaced (spec cannot change in place)`,
    );
    expect(error.message).toContain("spec.runtime.timeout");
  });

  it("a Service with both backend and filter is no mode switch: an update the API refuses, not a replacement", async () => {
    await direct();
    const { outs: state } = await created("Service", declared("both", digestService(REPO), { await: SKIP }));
    const spec = digestService(REPO) as { template: { spec: Record<string, unknown> } };
    spec.template.spec = {
      ...spec.template.spec,
      backend: { protocol: "http1" },
      filter: { phase: "request" },
    };
    const diff = await providerOf("Service").diff(state.metadata.name, state, { ...state, spec });
    expect(diff).toMatchObject({ changes: true, replaces: [], deleteBeforeReplace: false });
  });
});

function revision(timeout: string) {
  return {
    bundle: { repo: REPO, digest: `sha256:${"7".repeat(64)}` },
    runtime: { compatibilityDate: "2026-01-01", timeout },
  };
}
