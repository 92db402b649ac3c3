// The Node version the packages ask for (sdk/shared/node-version.ts, package.json engines.node) against what
// their production dependencies declare in their own engines, as package-lock.json records them.
import { readFileSync } from "node:fs";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { SERVER_DEPENDENCIES } from "../../../scripts/server-package";
import { nodeSatisfies, nodeVersionMessage, REQUIRED_NODE } from "../../../sdk/shared/node-version";

const ROOT = path.resolve(__dirname, "../../..");
const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));

interface LockEntry {
  version?: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  dev?: boolean;
}
const packages: Record<string, LockEntry> = lock.packages;

/** The lock key npm resolves `name` to from the package at lock key `from` (node_modules folders upwards). */
function resolve(name: string, from: string): string | undefined {
  for (let dir = from; ; ) {
    const key = `${dir === "" ? "" : `${dir}/`}node_modules/${name}`;
    if (packages[key]) return key;
    if (dir === "") return undefined;
    const cut = dir.lastIndexOf("/node_modules/");
    dir = cut < 0 ? "" : dir.slice(0, cut);
  }
}

/**
 * Every package a user installs with this one or with the server's: the closure of `dependencies` and of
 * the server package's, never devDependencies.
 */
function productionPackages(): Map<string, LockEntry> {
  const found = new Map<string, LockEntry>();
  const names = new Set([...Object.keys(manifest.dependencies), ...SERVER_DEPENDENCIES]);
  const queue = [...names].map((name) => resolve(name, ""));
  for (let key = queue.pop(); key !== undefined || queue.length > 0; key = queue.pop()) {
    if (key === undefined || found.has(key)) continue;
    const entry = packages[key] as LockEntry;
    found.set(key, entry);
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies }))
      queue.push(resolve(name, key));
  }
  return found;
}

describe("the Node version the package needs", () => {
  it("is package.json's engines.node", () => {
    expect(manifest.engines.node).toBe(`>=${REQUIRED_NODE}`);
  });

  it("satisfies every production dependency's engines, and is the oldest that does", () => {
    const deps = productionPackages();
    expect(deps.size).toBeGreaterThan(50);
    const refusing = (version: string) =>
      [...deps]
        .filter(([, entry]) => entry.engines?.node && !semver.satisfies(version, entry.engines.node))
        .map(
          ([key, entry]) =>
            `${key.replace(/.*node_modules\//, "")}@${entry.version} (${entry.engines?.node})`,
        );
    expect(refusing(REQUIRED_NODE)).toEqual([]);
    // One patch release older is refused by some dependency (undici 8 today).
    const older = semver.parse(REQUIRED_NODE);
    if (!older) throw new Error(`REQUIRED_NODE ${REQUIRED_NODE} is not a version`);
    const previous =
      older.patch > 0
        ? `${older.major}.${older.minor}.${older.patch - 1}`
        : `${older.major}.${older.minor - 1}.99`;
    expect(refusing(previous).length).toBeGreaterThan(0);
  });

  it("compares versions as numbers", () => {
    expect(nodeSatisfies("22.19.0", "22.19.0")).toBe(true);
    expect(nodeSatisfies("22.20.1", "22.19.0")).toBe(true);
    expect(nodeSatisfies("24.0.0", "22.19.0")).toBe(true);
    expect(nodeSatisfies("22.9.0", "22.19.0")).toBe(false);
    expect(nodeSatisfies("20.20.2", "22.19.0")).toBe(false);
    expect(nodeSatisfies(process.versions.node)).toBe(true);
  });

  it("says both versions in one line", () => {
    const message = nodeVersionMessage("20.20.2", "/usr/bin/node");
    expect(message).not.toContain("\n");
    expect(message).toContain(`>= ${REQUIRED_NODE}`);
    expect(message).toContain("Node.js 20.20.2 (/usr/bin/node)");
  });
});
