import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Node's compile cache for every process the tests start (servers, kube-apiserver's harness, the CLI's programs
 * and providers): thousands of Node processes load the same modules, and compiling them is a third of a short
 * program's CPU. Where Node keeps it by default; the tests' own TMPDIRs (one per stack) would defeat it.
 */
process.env.NODE_COMPILE_CACHE ??= path.join(os.tmpdir(), "node-compile-cache");

/**
 * How many files run at once (vitest's default on CI's 2 cores is one). The short suites run first, two files
 * at a time: their timing-sensitive tests (restarts, watches, leases) get a core each. Then the e2e and kube
 * suites, four at a time: a file of theirs spends most of its time waiting on the processes it started (the
 * Pulumi CLI, kube-apiserver), and takes minutes. Files share no state: each starts its own servers on free
 * ports, and each stack runs in a private copy of its fixture (test/helpers/pulumi.ts).
 */
const SHORT = { groupOrder: 0, maxWorkers: 2 };
const LONG = { groupOrder: 1, maxWorkers: 4 };

// One project per suite so each can run alone (`npm run test:<suite>`) or all together (`vitest run`).
const suite = (name: string, timeout: number, { groupOrder, maxWorkers }: typeof SHORT) => ({
  test: {
    name,
    include: [`test/${name}/**/*.test.ts`],
    testTimeout: timeout,
    hookTimeout: timeout,
    maxWorkers,
    sequence: { groupOrder },
  },
});

/**
 * The longest files (4 to 8 minutes each alone, against under 3 for the others; ha-faults' environment alone
 * is five): started first, so that none
 * of them is left running alone at the end. vitest orders by its last durations, but a clean clone has none
 * and falls back to file size, which puts a short file that imports its tests (data-safety-*) last.
 */
const LONGEST_FILES = [
  "test/kube/ha-faults.test.ts",
  "test/e2e/data-safety-kube.test.ts",
  "test/e2e/data-safety-local.test.ts",
  "test/e2e/names.test.ts",
  "test/e2e/readme-commands.test.ts",
  "test/e2e/preview-promise.test.ts",
  "test/e2e/native-provider.test.ts",
];

/** vitest's order (groups, then its own), with the longest files first in their group. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const group = (file: TestSpecification) => file.project.config.sequence.groupOrder;
    const longest = (file: TestSpecification) => {
      const index = LONGEST_FILES.findIndex((name) => file.moduleId.endsWith(name));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    // Array sort is stable: within a rank, vitest's order stays.
    return (await super.sort(files)).sort((a, b) => group(a) - group(b) || longest(a) - longest(b));
  }
}

/**
 * The oldest Kubernetes minor the project supports (docs/kubernetes.md#supported-versions; kube.sh's
 * EXAMPLEDEV_KUBE_VERSION): a smaller job than the reference release's, the differential suite and one e2e
 * stack, both on kube-apiserver only (the local server does not change with the release).
 */
const OLDEST_KUBE = "1.35";
const kubeOldest = {
  test: {
    name: `kube-${OLDEST_KUBE}`,
    include: ["test/kube/conformance/conformance.test.ts", "test/e2e/provider.test.ts"],
    testNamePattern: /on the kube server/,
    env: { EXAMPLEDEV_KUBE_VERSION: OLDEST_KUBE },
    testTimeout: 900_000,
    hookTimeout: 900_000,
    maxWorkers: LONG.maxWorkers,
    sequence: { groupOrder: LONG.groupOrder },
  },
};

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      suite("unit", 10_000, SHORT),
      suite("api", 30_000, SHORT),
      suite("controller", 60_000, SHORT),
      suite("provider", 120_000, SHORT),
      suite("policy", 60_000, SHORT),
      suite("e2e", 600_000, LONG),
      // A real kube-apiserver: the first run may build it (minutes), then each start takes seconds.
      suite("kube", 900_000, LONG),
      kubeOldest,
    ],
  },
});
