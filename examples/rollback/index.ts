import { Service } from "@exampledev/pulumi";
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();
const pinned = config.get("pinnedRevision");

const service = new Service("shop", {
  spec: {
    // Empty means automatic: the latest minted revision serves. A name pins that revision (rollback);
    // new template versions are still minted but not selected until the pin is removed.
    ...(pinned ? { liveRevision: pinned } : {}),
    source: { oci: { repo: config.require("bundleRepo"), digest: config.require("bundleDigest") } },
    template: {
      spec: {
        runtime: { compatibilityDate: "2026-01-01" },
        env: [{ name: "APP_VERSION", value: config.get("appVersion") ?? "1" }],
      },
    },
  },
});

export const latestRevision = service.latestRevision;
export const liveRevision = service.liveRevision;
export const pinnedRevision = pinned ?? "";
