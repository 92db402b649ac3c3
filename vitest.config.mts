import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// One project per suite so each can run alone (`npm run test:<suite>`) or all together (`vitest run`).
const suite = (name: string, timeout: number) => ({
  test: { name, include: [`test/${name}/**/*.test.ts`], testTimeout: timeout, hookTimeout: timeout },
});

/** The suites whose files take minutes, mostly waiting on other processes (the Pulumi CLI, kube-apiserver). */
const LONG_SUITES = ["e2e", "kube"];
/**
 * The longest files (3 to 7 minutes each alone, against under 2 for the others): started first, so that none
 * of them is left running alone at the end. vitest orders by its last durations, but a clean clone has none
 * and falls back to file size, which puts a short file that imports its tests (data-safety-*) last.
 */
const LONGEST_FILES = [
  "test/e2e/data-safety-kube.test.ts",
  "test/e2e/data-safety-local.test.ts",
  "test/e2e/names.test.ts",
  "test/e2e/readme-commands.test.ts",
  "test/e2e/preview-promise.test.ts",
  "test/e2e/native-provider.test.ts",
];

/** vitest's order, with the longest files first, then the long suites ahead of the rest. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const longest = LONGEST_FILES.findIndex((name) => file.moduleId.endsWith(name));
      if (longest !== -1) return longest;
      const suite = LONG_SUITES.indexOf(file.project.name);
      return LONGEST_FILES.length + (suite === -1 ? LONG_SUITES.length : suite);
    };
    // Array sort is stable: within a rank, vitest's order stays.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // Four files at a time on CI's 2 cores (vitest's default there is one): an e2e or kube file spends most
    // of its time waiting on the processes it started. Files share no state: each starts its own servers on
    // free ports, and each stack runs in a private copy of its fixture (test/helpers/pulumi.ts).
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    projects: [
      suite("unit", 10_000),
      suite("api", 30_000),
      suite("controller", 60_000),
      suite("provider", 120_000),
      suite("policy", 60_000),
      suite("e2e", 600_000),
      // A real kube-apiserver: the first run may build it (minutes), then each start takes seconds.
      suite("kube", 900_000),
    ],
  },
});
