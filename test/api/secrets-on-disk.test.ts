import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { manifest, pathOf, useDurableServers } from "../helpers/server";
import { DIGEST } from "./fixtures";

const REPO = "registry.example.dev/team/app";
const RUNTIME = { compatibilityDate: "2024-09-01" };

/** A value that appears nowhere else, so finding its bytes means finding this very secret. */
const secret = (label: string) => `${label}-${randomBytes(16).toString("hex")}`;
/** keyData holds base64. */
const base64Secret = (label: string) => Buffer.from(secret(label)).toString("base64");

function proxySpec(key: string, keyData: string) {
  return {
    telemetry: {
      thirdPartySinks: { vendorAlphaLogs: { key }, vendorBetaTraces: { keyData } },
    },
  };
}

function serviceSpec(credentials: Record<string, string>) {
  return {
    source: { oci: { repo: REPO, digest: DIGEST, credentials: { username: "robot", ...credentials } } },
    template: { spec: { runtime: RUNTIME } },
  };
}

/** Every file of the data directory (store.db, store.db-wal, store.db-shm when there is one). */
function filesOf(dir: string): { name: string; bytes: Buffer }[] {
  return readdirSync(dir).map((name) => ({ name, bytes: readFileSync(join(dir, name)) }));
}

/** The labels of the values found somewhere on disk. */
function labelsOnDisk(dir: string, values: Record<string, string>): string[] {
  const files = filesOf(dir);
  return Object.entries(values)
    .filter(([, value]) => files.some(({ bytes }) => bytes.includes(value)))
    .map(([label]) => label)
    .sort();
}

/** Where each value is found on disk, as `<value label> in <file>`. */
function foundOnDisk(dir: string, values: Record<string, string>): string[] {
  const files = filesOf(dir);
  return Object.entries(values).flatMap(([label, value]) =>
    files.filter(({ bytes }) => bytes.includes(value)).map(({ name }) => `${label} in ${name}`),
  );
}

const durableServer = useDurableServers("secrets");

describe("secrets on disk", () => {
  it("keeps no deleted or rotated secret value in the data directory, during the run and after it", async () => {
    const { server: running, dataDir: dir } = await durableServer();

    const gone = {
      proxyKey: secret("proxy-key"),
      proxyKeyData: base64Secret("proxy-key-data"),
      password: secret("password"),
      accessToken: secret("access-token"),
      refreshToken: secret("refresh-token"),
      passwordData: secret("password-data"),
      rotatedKey: secret("rotated-key"),
    };
    const kept = { rotatedTo: secret("new-key"), keptKeyData: base64Secret("kept-key-data") };

    const creates = [
      manifest("Proxy", "gone", proxySpec(gone.proxyKey, gone.proxyKeyData)),
      manifest("Proxy", "kept", proxySpec(gone.rotatedKey, kept.keptKeyData)),
    ];
    for (const body of creates)
      expect((await running.call("POST", pathOf("Proxy"), { body })).status).toBe(201);
    const services = [
      manifest(
        "Service",
        "gone-a",
        serviceSpec({ password: gone.password, refreshToken: gone.refreshToken }),
      ),
      manifest(
        "Service",
        "gone-b",
        serviceSpec({ accessToken: gone.accessToken, passwordData: gone.passwordData }),
      ),
    ];
    for (const body of services) {
      const reply = await running.call("POST", pathOf("Service"), { body });
      expect(reply.status, reply.text).toBe(201);
    }
    // The controller mints a revision per Service, carrying the registry credentials with its bundle.
    await running.idle();
    expect(running.store.list("ServiceRevision")).toHaveLength(2);
    // Everything is on disk before the deletions, so the search below can find what it looks for.
    expect(labelsOnDisk(dir, { ...gone, keptKeyData: kept.keptKeyData })).toHaveLength(8);

    // Rotate: the client writes back what it read (placeholders keep stored values) with one new key.
    const read = (await running.call("GET", pathOf("Proxy", "kept"))).body;
    read.spec.telemetry.thirdPartySinks.vendorAlphaLogs.key = kept.rotatedTo;
    expect((await running.call("PUT", pathOf("Proxy", "kept"), { body: read })).status).toBe(200);

    expect((await running.call("DELETE", pathOf("Service", "gone-a"))).status).toBe(200);
    expect((await running.call("DELETE", pathOf("Service", "gone-b"))).status).toBe(200);
    expect((await running.call("DELETE", pathOf("Proxy", "gone"))).status).toBe(200);
    await expect.poll(() => running.store.get("Proxy", "gone")).toBeUndefined();
    await running.idle();
    expect(running.store.list("ServiceRevision")).toEqual([]);

    expect(foundOnDisk(dir, gone)).toEqual([]);
    expect(labelsOnDisk(dir, kept)).toEqual(["keptKeyData", "rotatedTo"]);

    await running.close();
    expect(foundOnDisk(dir, gone)).toEqual([]);
    expect(labelsOnDisk(dir, kept)).toEqual(["keptKeyData", "rotatedTo"]);
  });
});
