// The Pulumi toolchains a `--only pulumi` run compares (`--toolchains pinned,oldest,parallel-diff`): the pinned
// CLI (the lockfile's version), the oldest one the package supports (the floor of its @pulumi/pulumi range, as
// the suite's smoke stack runs it), and the pinned one with the engine's opt-in parallel diff. Each runs the same
// provider and no-op programs, on the repository's @pulumi/pulumi.
import { oldestSupportedPulumiVersion, pinnedPulumiVersion } from "../scripts/lib/pulumi";

export interface Toolchain {
  label: string;
  /** The CLI's version; undefined is the pinned one. */
  pulumiVersion?: string;
  env: Record<string, string>;
}

const TOOLCHAINS: Record<string, () => Toolchain> = {
  pinned: () => ({ label: `CLI ${pinnedPulumiVersion()}`, env: {} }),
  oldest: () => ({
    label: `CLI ${oldestSupportedPulumiVersion()} (oldest supported)`,
    pulumiVersion: oldestSupportedPulumiVersion(),
    env: {},
  }),
  "parallel-diff": () => ({
    label: `CLI ${pinnedPulumiVersion()}, PULUMI_PARALLEL_DIFF=true`,
    env: { PULUMI_PARALLEL_DIFF: "true" },
  }),
};

export function parseToolchains(list: string): Toolchain[] {
  return list.split(",").map((name) => {
    const make = TOOLCHAINS[name];
    if (make === undefined)
      throw new Error(`--toolchains: "${name}" is none of ${Object.keys(TOOLCHAINS).join(", ")}`);
    return make();
  });
}
