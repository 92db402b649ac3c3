// A Service on a private repository through the real Pulumi CLI (examples/git-source with gitCredentials):
// the server fetches it from a git server on loopback that asks for a password, which only the server's
// --credentials file holds. up goes to a minted revision; with a wrong password, up fails within seconds
// naming the credentials reference, and the password is in no message and not in the stack's state.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, createClient } from "../../sdk/client";
import { type RunningServer, startServer } from "../../server";
import { TestRepo } from "../helpers/git";
import { type GitHttpServer, startGitHttpServer } from "../helpers/git-http";
import { createTestStack, type TestStack } from "../helpers/pulumi";
import { type Registry, startRegistry } from "../helpers/registry";
import { copyRepository, type RepoCopy } from "./repo-copy";

const SERVICE = "git-private-e2e";
const ENTRY = "private-git";
const PASSWORD = "pw-e2e-git-4a7c02";
const WRONG = "pw-e2e-wrong-91d3bb";

describe("a Service on a private repository through the real Pulumi CLI", () => {
  let copy: RepoCopy;
  let dir: string;
  let credentialsFile: string;
  let server: RunningServer;
  let client: Client;
  let registry: Registry;
  let gitServer: GitHttpServer;
  let repo: TestRepo;
  let t: TestStack;
  const printed: string[] = [];
  const onOutput = (line: string) => printed.push(line);

  const writeCredentials = (password: string) => {
    const entry = { group: "core.example.dev", namespace: "default", name: ENTRY, username: "ci" };
    writeFileSync(credentialsFile, JSON.stringify({ credentials: [{ ...entry, passwordData: password }] }));
    chmodSync(credentialsFile, 0o600);
  };

  beforeAll(async () => {
    copy = copyRepository("examples");
    dir = mkdtempSync(path.join(tmpdir(), "exampledev-e2e-private-"));
    credentialsFile = path.join(dir, "credentials.json");
    writeCredentials(PASSWORD);
    [server, registry, gitServer] = await Promise.all([
      startServer({ port: 0, storage: "memory", logLevel: "warn", credentialsFile }),
      startRegistry(),
      startGitHttpServer({ username: "ci", password: PASSWORD }),
    ]);
    client = createClient({ baseUrl: server.url });
    repo = TestRepo.create("e2e-private");
    repo.commit({ "index.js": "export default { fetch: () => new Response('private') };\n" });
    t = await createTestStack(path.join(copy.dir, "examples/git-source"));
    await t.stack.setAllConfig({
      "exampledev:baseUrl": { value: server.url },
      gitUrl: { value: gitServer.url(repo) },
      gitCredentials: { value: ENTRY },
      outputRepo: { value: registry.repo("e2e/private-app") },
      serviceName: { value: SERVICE },
    });
  });

  afterAll(async () => {
    await t?.dispose();
    await client?.close();
    await Promise.all([server?.close(), registry?.stop(), gitServer?.close()]);
    repo?.remove();
    copy?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("up fetches with the credentials the reference names and exports the minted revision", async () => {
    const started = Date.now();
    const { outputs, summary } = await t.stack.up({ onOutput });
    console.log(`[timing] up of a Service on a private repository: ${Date.now() - started} ms`);
    expect(summary.result).toBe("succeeded");
    expect(outputs.latestRevision?.value).toMatch(new RegExp(`^${SERVICE}-[0-9a-f]{10}$`));
    expect(outputs.lastBuild?.value).toMatchObject({ phase: "Succeeded", commit: repo.head() });
    const state = JSON.stringify(await t.stack.exportStack());
    expect(state).not.toContain(PASSWORD);
    await t.stack.destroy({ onOutput });
  });

  it("with a wrong password, up fails within seconds naming the reference, never the password", async () => {
    writeCredentials(WRONG);
    const started = Date.now();
    const failed = await t.stack.up({ onOutput }).then(
      () => undefined,
      (error: Error) => error,
    );
    const elapsed = Date.now() - started;
    console.log(`[timing] up failed on refused git credentials after ${elapsed} ms`);
    expect(failed?.message).toContain(`Service "${SERVICE}" was written but did not become ready`);
    expect(failed?.message).toContain(`namespace "default", name "${ENTRY}"`);
    expect(failed?.message).not.toContain(WRONG);
    expect(printed.join("\n")).not.toContain(WRONG);
    expect(JSON.stringify(await t.stack.exportStack())).not.toContain(WRONG);
    // Far below the resource's await timeout (minutes): the failure is reported, not waited out.
    expect(elapsed).toBeLessThan(60_000);
    await t.stack.destroy({ onOutput });
  });
});
