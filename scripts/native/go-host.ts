// The Go language host (`pulumi-language-go`) for running Go programs with the pinned CLI, built from the
// module in scripts/native/go-host (see its tools.go for why v3.60.0) and cached outside the repository
// like the CLI. Used by test/e2e/native-go.test.ts; put its directory first on PATH to run a Go program.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "../lib/docs";

const MODULE = path.join(REPO, "scripts", "native", "go-host");
const SDK_VERSION = "v3.60.0";

/** The directory holding `pulumi-language-go`, built on first use (minutes on a cold Go cache). */
export function goLanguageHostDir(): string {
  const cacheRoot =
    process.env.EXAMPLEDEV_TOOLCHAIN_CACHE ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "exampledev-pulumi");
  const dir = path.join(cacheRoot, `pulumi-language-go-${SDK_VERSION}`);
  const binary = path.join(dir, "pulumi-language-go");
  if (existsSync(binary)) return dir;
  console.log(
    `[go-host] building pulumi-language-go from github.com/pulumi/pulumi/sdk/v3@${SDK_VERSION} into ${dir}`,
  );
  execFileSync(
    "go",
    [
      "build",
      "-trimpath",
      "-ldflags",
      "-s -w",
      "-o",
      binary,
      "github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go",
    ],
    { cwd: MODULE, env: { ...goEnvironment(), GOFLAGS: "-mod=mod" }, stdio: "inherit" },
  );
  return dir;
}

/** PATH with the Go toolchain (its usual place here, /usr/local/go/bin) and CGO off. */
export function goEnvironment(): NodeJS.ProcessEnv {
  const goBin = existsSync("/usr/local/go/bin/go") ? "/usr/local/go/bin" : "";
  return { ...process.env, PATH: [goBin, process.env.PATH].filter(Boolean).join(":"), CGO_ENABLED: "0" };
}
