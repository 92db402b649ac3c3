// Builds of git sources with real repositories and a real registry: the first build mints a revision
// pinned to the pushed manifest, trees give reproducible layers, rootDir selects what is packaged, a
// template change mints from the last built digest, and polling picks up new commits.
import { gunzipSync } from "node:zlib";
import { extract } from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILD_ANNOTATIONS, BUNDLE_LAYER_TYPE } from "../../builder/git";
import { startGitDaemon, TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";
import { startTestServer, type TestServer } from "../helpers/server";
import { ServiceApi } from "./api";
import {
  acceptedMessage,
  acceptedWith,
  builtCommit,
  gitSpec,
  manifestOf,
  mintedDigest,
  reportTiming,
} from "./git-fixtures";

let registry: Registry;
let server: TestServer;
let api: ServiceApi;
const repos: TestRepo[] = [];

function newRepo(prefix: string): TestRepo {
  const repo = TestRepo.create(prefix);
  repos.push(repo);
  return repo;
}

beforeAll(async () => {
  registry = await startRegistry();
  server = await startTestServer({ git: { pollIntervalMs: 200 } });
  api = new ServiceApi(server);
});

afterAll(async () => {
  await server?.close();
  await registry?.stop();
  for (const repo of repos) repo.remove();
});

/** The entries of a pushed layer: name, type, mode, mtime, owner, and content or link target. */
async function layerEntries(path: string, layerDigest: string) {
  const response = await fetch(`${registry.url}/v2/${path}/blobs/${layerDigest}`);
  const tar = gunzipSync(Buffer.from(await response.arrayBuffer()));
  const entries: Record<string, unknown>[] = [];
  const reader = extract();
  const done = (async () => {
    for await (const entry of reader) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const { name, type, mode, mtime, uid, gid, linkname } = entry.header;
      entries.push({
        name,
        type,
        mode,
        mtime: mtime.getTime(),
        uid,
        gid,
        ...(type === "file" && { content: Buffer.concat(chunks).toString() }),
        ...(type === "symlink" && { linkname }),
      });
    }
  })();
  reader.end(tar);
  await done;
  return entries;
}

describe("git builds", () => {
  it("builds the production branch, pushes one reproducible layer and mints a revision pinned to the manifest", async () => {
    const repo = newRepo("first");
    const startedAt = Date.now();
    const commit = repo.commit({
      "index.js": "export default {}",
      "bin/run": { content: "#!/bin/sh\n", executable: true },
      "lib/link.js": { symlink: "../index.js" },
    });
    await api.create("first", gitSpec(repo, registry, "team/first"));
    const status = await acceptedWith(api, "first", "Minted");
    reportTiming("first build", startedAt);

    expect(status.lastBuild).toMatchObject({ phase: "Succeeded", branch: "main", commit });
    expect(status.build).toBeUndefined();
    const digest = status.lastBuild?.digest ?? "";
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await mintedDigest(server, status)).toBe(digest);
    const revision = (await api.revisions("first"))[0];
    expect(revision.spec.bundle).toEqual({ repo: registry.repo("team/first"), digest });

    const head = await fetch(`${registry.url}/v2/team/first/manifests/${digest}`, {
      method: "HEAD",
      headers: { accept: "application/vnd.oci.image.manifest.v1+json" },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("docker-content-digest")).toBe(digest);
    const pushed = await manifestOf(registry, "team/first", digest);
    expect(pushed.manifest.annotations).toEqual({
      [BUILD_ANNOTATIONS.source]: repo.url,
      [BUILD_ANNOTATIONS.revision]: commit,
      [BUILD_ANNOTATIONS.branch]: "main",
    });
    expect(BUILD_ANNOTATIONS).toMatchObject({
      source: "org.opencontainers.image.source",
      revision: "org.opencontainers.image.revision",
    });
    const [layer] = pushed.manifest.layers;
    expect(layer.mediaType).toBe(BUNDLE_LAYER_TYPE);
    expect(await layerEntries("team/first", layer.digest)).toEqual([
      { name: "bin/", type: "directory", mode: 0o755, mtime: 0, uid: 0, gid: 0 },
      { name: "bin/run", type: "file", mode: 0o755, mtime: 0, uid: 0, gid: 0, content: "#!/bin/sh\n" },
      { name: "index.js", type: "file", mode: 0o644, mtime: 0, uid: 0, gid: 0, content: "export default {}" },
      { name: "lib/", type: "directory", mode: 0o755, mtime: 0, uid: 0, gid: 0 },
      {
        name: "lib/link.js",
        type: "symlink",
        mode: 0o777,
        mtime: 0,
        uid: 0,
        gid: 0,
        linkname: "../index.js",
      },
    ]);
  });

  it("gives identical trees one layer digest, and one commit one manifest digest", async () => {
    const files = { "a.txt": "same tree", "dir/b.txt": "b" };
    const one = newRepo("same-one");
    const two = newRepo("same-two");
    one.commit(files, { message: "one" });
    two.commit(files, { message: "two", date: "2021-05-05T00:00:00Z" });
    await api.create("same-one", gitSpec(one, registry, "team/same"));
    await api.create("same-two", gitSpec(two, registry, "team/same"));
    // A second Service on the same repository shares the mirror and builds the same manifest.
    await api.create("same-one-again", gitSpec(one, registry, "team/same"));
    const [a, b, c] = await Promise.all(
      ["same-one", "same-two", "same-one-again"].map((name) => acceptedWith(api, name, "Minted")),
    );
    const layers = await Promise.all(
      [a, b].map(
        async (status) =>
          (await manifestOf(registry, "team/same", status?.lastBuild?.digest ?? "")).manifest.layers,
      ),
    );
    expect(layers[0]).toEqual(layers[1]);
    // The manifests differ only in naming their source and commit.
    expect(a?.lastBuild?.digest).not.toBe(b?.lastBuild?.digest);
    expect(c?.lastBuild?.digest).toBe(a?.lastBuild?.digest);
  });

  it("packages only rootDir, and tags the manifest with build.output.tag", async () => {
    const repo = newRepo("rootdir");
    repo.commit({ "app/main.js": "app", "README.md": "outside rootDir" });
    await api.create(
      "rootdir",
      gitSpec(repo, registry, "team/rootdir", {
        build: { rootDir: "app", output: { repo: registry.repo("team/rootdir"), tag: "edge" } },
      }),
    );
    const status = await acceptedWith(api, "rootdir", "Minted");
    const tagged = await manifestOf(registry, "team/rootdir", "edge");
    expect(tagged.digest).toBe(status.lastBuild?.digest);
    const entries = await layerEntries("team/rootdir", tagged.manifest.layers[0].digest);
    expect(entries.map((entry) => entry.name)).toEqual(["main.js"]);
  });

  it("mints a template change from the last built digest without building again", async () => {
    const repo = newRepo("template");
    const commit = repo.commit({ "index.js": "v1" });
    await api.create("template", gitSpec(repo, registry, "team/template"));
    const before = await acceptedWith(api, "template", "Minted");
    await api.patch("template", { spec: { template: { spec: { env: [{ name: "MODE", value: "two" }] } } } });
    const after = await acceptedWith(api, "template", "Minted");
    expect(after.latestRevision).not.toBe(before.latestRevision);
    expect(await mintedDigest(server, after)).toBe(before.lastBuild?.digest);
    // The same build: its start time did not move.
    expect(after.lastBuild).toEqual(before.lastBuild);
    expect(after.lastBuild?.commit).toBe(commit);
  });

  it("fetches over git:// from a loopback host", async () => {
    const daemon = await startGitDaemon();
    try {
      const repo = newRepo("daemon");
      const commit = repo.commit({ "index.js": "served" });
      await api.create("daemon", gitSpec(daemon.url(repo), registry, "team/daemon"));
      const status = await acceptedWith(api, "daemon", "Minted");
      expect(status.lastBuild?.commit).toBe(commit);
      const pushed = await manifestOf(registry, "team/daemon", status.lastBuild?.digest ?? "");
      expect(pushed.manifest.annotations[BUILD_ANNOTATIONS.source]).toBe(daemon.url(repo));
    } finally {
      await daemon.stop();
    }
  });

  it("notices a new commit by polling and mints a revision for it", async () => {
    const repo = newRepo("poll");
    repo.commit({ "index.js": "v1" });
    await api.create("poll", gitSpec(repo, registry, "team/poll"));
    const first = await acceptedWith(api, "poll", "Minted");
    const startedAt = Date.now();
    const next = repo.commit({ "index.js": "v2" });
    const status = await builtCommit(api, "poll", next);
    reportTiming("new commit by polling (200 ms interval)", startedAt);
    expect(status.latestRevision).not.toBe(first.latestRevision);
    expect(await mintedDigest(server, status)).toBe(status.lastBuild?.digest);
    expect(acceptedMessage(status)).toContain(status.lastBuild?.digest ?? "-");
  });
});
