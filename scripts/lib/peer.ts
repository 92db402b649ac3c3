// The peer provider for the scale benchmark: pulumi-kubernetes' plugin and npm SDK, from the set-up script
// that builds and caches them (scripts/toolchain/peer.sh), and the plugin installed from its file into a
// PULUMI_HOME, as the CLI cannot download it here.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { toolchainBinDir } from "./pulumi";

export const PEER_VERSION = "4.24.1";

const repo = path.resolve(__dirname, "../..").replace(/\/dist$/, "");

export interface PeerToolchain {
  binary: string;
  /** node_modules holding @pulumi/kubernetes and the project's @pulumi/pulumi. */
  nodeModules: string;
}

/** Builds the plugin and installs the SDK on first use (about 17 minutes cold), else finds them. */
export function peerToolchain(): PeerToolchain {
  return toolchainIn(peerScript("--print-dir"));
}

/** The plugin and the SDK if they are built, without building them. */
export function builtPeerToolchain(): PeerToolchain | undefined {
  const dir = peerScript("--if-built");
  return dir === "" ? undefined : toolchainIn(dir);
}

function peerScript(mode: "--print-dir" | "--if-built"): string {
  return execFileSync("bash", [path.join(repo, "scripts/toolchain/peer.sh"), mode], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

function toolchainIn(dir: string): PeerToolchain {
  return {
    binary: path.join(dir, "bin/pulumi-resource-kubernetes"),
    nodeModules: path.join(dir, "sdk/node_modules"),
  };
}

export function installPeerPlugin(peer: PeerToolchain, pulumiHome: string): void {
  const pulumi = path.join(toolchainBinDir(), "pulumi");
  execFileSync(
    pulumi,
    ["plugin", "install", "resource", "kubernetes", `v${PEER_VERSION}`, "--file", peer.binary],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, PULUMI_HOME: pulumiHome, PULUMI_SKIP_UPDATE_CHECK: "true" },
    },
  );
}
