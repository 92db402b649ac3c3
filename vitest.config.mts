import { defineConfig } from "vitest/config";

// One project per suite so each can run alone (`npm run test:<suite>`) or all together (`vitest run`).
const suite = (name: string, timeout: number) => ({
  test: { name, include: [`test/${name}/**/*.test.ts`], testTimeout: timeout, hookTimeout: timeout },
});

export default defineConfig({
  test: {
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
