import { Service } from "@exampledev/pulumi";
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();
// A private repository: the entry of the server's --credentials file its fetches send (never a password here).
const credentials = config.get("gitCredentials");

// The server builds the head of `main`: it fetches the repository, packages rootDir as an OCI artifact,
// pushes it to outputRepo and mints a revision pinned to the pushed digest. Every other branch gets a
// preview Service of its own, deleted after a day without commits.
const service = new Service("app", {
  metadata: { name: config.get("serviceName") ?? "git-app" },
  spec: {
    source: {
      git: {
        url: config.require("gitUrl"),
        ...(credentials && {
          credentialsRef: { group: "core.example.dev", namespace: "default", name: credentials },
        }),
        build: { output: { repo: config.require("outputRepo") }, rootDir: config.get("rootDir") ?? "." },
        triggers: { productionBranch: "main" },
        previews: { enabled: true, ttl: "24h" },
      },
    },
    template: {
      spec: {
        runtime: { compatibilityDate: "2026-01-01", timeout: "10s" },
        env: [{ name: "GREETING_SOURCE", value: "git" }],
      },
    },
  },
});

export const serviceName = service.metadata.name;
export const latestRevision = service.latestRevision;
/** The commit and digest of the last build (phase, branch, commit, digest). */
export const lastBuild = service.lastBuild;
/** The preview Services the controller runs for other branches (refresh to see new ones). */
export const previews = service.status.apply((status) => status?.previews ?? []);
