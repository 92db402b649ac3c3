// Git-sourced Services against real repositories and a real registry: specs, waits on build status,
// and the manifest a build pushed.
import { request } from "undici";
import type { GitSourceInput, ServiceSpecInput } from "../../sdk/schema";
import type { ServiceStatus } from "../../sdk/schema/status";
import type { TestRepo } from "../helpers/git";
import type { Registry } from "../helpers/registry";
import { pathOf, type TestServer } from "../helpers/server";
import { eventually, type ServiceApi } from "./api";
import type { StatusView } from "./fixtures";

export type GitStatus = StatusView &
  Pick<ServiceStatus, "build" | "lastBuild" | "previewHeads" | "closedPullRequests"> & {
    previews?: unknown[];
  };

export function gitSpec(
  repo: TestRepo | string,
  registry: Registry,
  path: string,
  git: Partial<Omit<GitSourceInput, "build">> & { build?: Partial<GitSourceInput["build"]> } = {},
): ServiceSpecInput {
  const { build, ...rest } = git;
  return {
    source: {
      git: {
        url: typeof repo === "string" ? repo : repo.url,
        triggers: {},
        ...rest,
        build: { output: { repo: registry.repo(path) }, ...build },
      },
    },
    template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
  };
}

/** Waits for the Accepted condition to have `reason` on the current generation; returns the status. */
export function acceptedWith(api: ServiceApi, name: string, reason: string): Promise<GitStatus> {
  return api.reason(name, "Accepted", reason) as Promise<GitStatus>;
}

/** Waits until `status.lastBuild` has built `commit`; returns the status. */
export async function builtCommit(api: ServiceApi, name: string, commit: string): Promise<GitStatus> {
  return eventually(`Service ${name} to build ${commit.slice(0, 12)}`, async () => {
    const service = await api.get(name);
    const status = service.status as GitStatus | undefined;
    return status?.lastBuild?.commit === commit && status.build === undefined ? status : undefined;
  });
}

/** The message of the Accepted condition. */
export function acceptedMessage(status: StatusView): string {
  return status.conditions.find((condition) => condition.type === "Accepted")?.message ?? "";
}

/** The digest the Service's latest revision runs. */
export async function mintedDigest(server: TestServer, status: StatusView): Promise<string> {
  const revision = await server.call("GET", pathOf("ServiceRevision", status.latestRevision ?? ""));
  return revision.body.spec.bundle.digest;
}

/** The manifest the registry holds under `reference` (tag or digest), or its HTTP status. */
export async function manifestOf(registry: Registry, path: string, reference: string) {
  const response = await request(`${registry.url}/v2/${path}/manifests/${reference}`, {
    headers: { accept: "application/vnd.oci.image.manifest.v1+json" },
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    digest: response.headers["docker-content-digest"],
    manifest: response.statusCode === 200 ? JSON.parse(text) : undefined,
  };
}

/** Prints how long a commit took to become a minted revision (a timing: printed, never asserted). */
export function reportTiming(what: string, startedAt: number): void {
  console.log(`[timing] ${what}: ${Date.now() - startedAt} ms commit -> minted revision`);
}
