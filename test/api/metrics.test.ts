// `/metrics` on the local server's API port (server/http/metrics.ts): kube-apiserver's request metrics and
// the embedded controller's under client-go's, controller-runtime's and the project's names, in the
// Prometheus text format; to loopback callers without --token, to the token's holders with one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestLabels } from "../../server/http/metrics";
import { manifest, pathOf, startTestServer, type TestServer } from "../helpers/server";

const DIGEST = `sha256:${"0123456789abcdef".repeat(4)}`;
const SPEC = {
  source: { oci: { repo: "registry.example.dev/team/app", digest: DIGEST } },
  template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
};

/** The samples of a metric, `name{labels} value` lines. */
function samples(text: string, name: string): string[] {
  return text.split("\n").filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe("/metrics on the local server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ proxyDeletionGraceMs: 100 });
    for (const name of ["m1", "m2", "m3"])
      expect(
        (await server.call("POST", pathOf("Service"), { body: manifest("Service", name, SPEC) })).status,
      ).toBe(201);
    await server.idle();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("serves the request, work queue, reconcile and minting metrics in the text format", async () => {
    const reply = await server.call("GET", "/metrics");
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toContain("text/plain");
    const text = reply.text;
    expect(samples(text, "apiserver_request_total")).toContainEqual(
      expect.stringMatching(
        /^apiserver_request_total\{verb="POST",group="compute.example.dev",version="v1alpha1",resource="services",subresource="",scope="cluster",component="apiserver",code="201"\} 3$/,
      ),
    );
    expect(text).toMatch(/apiserver_request_duration_seconds_bucket\{le="0.005",verb="POST"/);
    // The controller's watches are open.
    expect(
      samples(text, "apiserver_longrunning_requests").some((line) => line.includes('verb="WATCH"')),
    ).toBe(true);
    expect(samples(text, "exampledev_revisions_minted_total")).toEqual([
      "exampledev_revisions_minted_total 3",
    ]);
    expect(samples(text, "workqueue_adds_total").some((line) => line.includes('name="services"'))).toBe(true);
    expect(samples(text, "workqueue_depth")).toContain('workqueue_depth{name="services"} 0');
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="service",result="success"\} \d+/);
    expect(text).toMatch(/# TYPE workqueue_queue_duration_seconds histogram/);
    expect(text).toMatch(/# TYPE workqueue_unfinished_work_seconds gauge/);
    expect(text).toMatch(/exampledev_events_total\{outcome="created"\} \d+/);
  });

  it("names requests as kube-apiserver's request info does", () => {
    const of = (method: string, url: string, type?: string) => {
      const { verb, resource, subresource, scope } = requestLabels(method, url, type);
      return `${verb} ${resource}/${subresource} ${scope}`;
    };
    expect(of("GET", "/apis/compute.example.dev/v1alpha1/services?watch=true")).toBe(
      "WATCH services/ cluster",
    );
    expect(of("GET", "/apis/compute.example.dev/v1alpha1/services")).toBe("LIST services/ cluster");
    expect(of("PUT", "/apis/compute.example.dev/v1alpha1/services/a/status")).toBe(
      "PUT services/status resource",
    );
    expect(of("PATCH", "/apis/core.example.dev/v1alpha2/proxies/a", "application/apply-patch+yaml")).toBe(
      "APPLY proxies/ resource",
    );
    expect(of("DELETE", "/apis/core.example.dev/v1alpha2/proxies")).toBe("DELETECOLLECTION proxies/ cluster");
    expect(of("POST", "/api/v1/namespaces/default/events")).toBe("POST events/ namespace");
  });

  it("needs the token when the server has one", async () => {
    const guarded = await startTestServer({ token: "m3trics" });
    try {
      const anonymous = await guarded.call("GET", "/metrics", { headers: { authorization: "" } });
      expect(anonymous.status).toBe(401);
      const allowed = await guarded.call("GET", "/metrics");
      expect(allowed.status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
