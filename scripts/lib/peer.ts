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
  const dir = execFileSync("bash", [path.join(repo, "scripts/toolchain/peer.sh"), "--print-dir"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
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
