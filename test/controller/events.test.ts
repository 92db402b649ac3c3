import { describe, expect, it } from "vitest";
import { serviceKeyOf } from "../../controller/events";
import type { ApiObject } from "../../sdk/client/types";
import type { KindName } from "../../sdk/schema";

const event = (kind: KindName, metadata: ApiObject["metadata"]): ApiObject => ({
  apiVersion: "v",
  kind,
  metadata,
  spec: {},
});

const owner = (name: string, controller: boolean) => ({
  apiVersion: "compute.example.dev/v1alpha1",
  kind: "Service",
  name,
  uid: `uid-${name}`,
  controller,
});

describe("serviceKeyOf", () => {
  it("names the Service itself for a Service event", () => {
    expect(serviceKeyOf(event("Service", { name: "web" }))).toBe("web");
  });

  it("names the controlling Service of a revision", () => {
    const metadata = { name: "web-0123456789", ownerReferences: [owner("other", false), owner("web", true)] };
    expect(serviceKeyOf(event("ServiceRevision", metadata))).toBe("web");
  });

  it("falls back to the Service label of a revision without a controlling Service", () => {
    const metadata = { name: "r", labels: { "compute.example.dev/service": "web" } };
    expect(serviceKeyOf(event("ServiceRevision", metadata))).toBe("web");
  });

  it("names nothing for a revision of no Service, nor for a Proxy", () => {
    expect(serviceKeyOf(event("ServiceRevision", { name: "r" }))).toBeUndefined();
    expect(serviceKeyOf(event("Proxy", { name: "p" }))).toBeUndefined();
  });
});
