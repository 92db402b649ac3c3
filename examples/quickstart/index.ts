import { Proxy, Service } from "@exampledev/pulumi";
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();
const bundleDigest = config.get("bundleDigest");

const proxy = new Proxy("edge", {
  spec: {
    provider: "cloud",
    // The drain floor must be at least the drain timeout (rule drain-minimum).
    shutdown: { drainTimeout: "20s", minimumDrainTime: "45s" },
    telemetry: {
      accessLogs: { json: { service: "quickstart" } },
      tracing: { enabled: true, tags: { team: "platform" } },
    },
  },
});

const service = new Service("hello", {
  metadata: { labels: { app: "hello" } },
  spec: {
    source: {
      oci: {
        repo: config.require("bundleRepo"),
        // A digest pins the exact artifact; without one the controller resolves the tag.
        ...(bundleDigest ? { digest: bundleDigest } : { tag: config.get("bundleTag") ?? "latest" }),
      },
    },
    revisionHistoryLimit: 5,
    template: {
      spec: {
        runtime: { compatibilityDate: "2026-01-01", timeout: "10s" },
        env: [{ name: "GREETING", value: config.get("greeting") ?? "hello" }],
        backend: { protocol: "http2" },
      },
    },
  },
});

export const proxyName = proxy.metadata.name;
export const serviceName = service.metadata.name;
export const latestRevision = service.latestRevision;
export const liveRevision = service.liveRevision;
export const egressReady = service.egressReady;
