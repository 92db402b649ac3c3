// A git host that accepts connections and never answers holds up only the Services that name it: their builds
// wait in that host's build slots (2 per host), and their fetches in that host's polls; a Service on another
// repository is built, minted and polled meanwhile.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitHost } from "../../builder/git";
import { TestRepo } from "../helpers/git";
import { type Registry, startRegistry } from "../helpers/registry";
import { startTestServer, type TestServer } from "../helpers/server";
import { ServiceApi } from "./api";
import { acceptedWith, builtCommit, gitSpec } from "./git-fixtures";

let registry: Registry;
let server: TestServer;
let api: ServiceApi;
let silent: Server;
const sockets = new Set<Socket>();
let connections = 0;
const repos: TestRepo[] = [];

beforeAll(async () => {
  silent = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.resume();
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  registry = await startRegistry();
  server = await startTestServer({ git: { pollIntervalMs: 200 } });
  api = new ServiceApi(server);
});

afterAll(async () => {
  await server?.close();
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => silent?.close(() => resolve()));
  await registry?.stop();
  for (const repo of repos) repo.remove();
});

describe("a git host that never answers", () => {
  it("holds up no build, mint or poll of a repository elsewhere", async () => {
    const { port } = silent.address() as { port: number };
    // More Services on the silent host than it has build slots.
    for (let index = 0; index < 3; index++) {
      await api.create(
        `hangs-${index}`,
        gitSpec(`http://127.0.0.1:${port}/team/app-${index}.git`, registry, "hangs"),
      );
    }
    await expect.poll(() => connections, { timeout: 20_000 }).toBeGreaterThan(0);

    const repo = TestRepo.create("elsewhere");
    repos.push(repo);
    const first = repo.commit({ "index.js": "export default 1;\n" });
    await api.create("elsewhere", gitSpec(repo, registry, "elsewhere"));
    await builtCommit(api, "elsewhere", first);
    await acceptedWith(api, "elsewhere", "Minted");
    // Polled while the silent host's fetches hang: a new commit is built too.
    const second = repo.commit({ "index.js": "export default 2;\n" });
    await builtCommit(api, "elsewhere", second);

    const hanging = await api.get("hangs-0");
    expect(hanging.status?.latestRevision).toBeUndefined();
  });
});

describe("gitHost", () => {
  it.each([
    ["https://git.example.dev/team/app.git", "git.example.dev"],
    ["http://127.0.0.1:8080/team/app.git", "127.0.0.1:8080"],
    ["git@GitHub.com:team/app.git", "github.com"],
    ["file:///srv/repos/app", "local"],
    ["/srv/repos/app", "local"],
  ])("%s is %s", (url, host) => {
    expect(gitHost(url)).toBe(host);
  });
});
