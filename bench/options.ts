import path from "node:path";
import { parseArgs } from "node:util";
import { BACKENDS } from "./backends";
import type { MintingOptions } from "./minting";
import { OPERATIONS, type Operation } from "./pulumi-runs";
import type { ScaleOptions } from "./scale";
import { parseToolchains } from "./toolchains";

// The command line of `npm run bench`: the sections to run and their sizes, or the two-backend runs.

export const USAGE = `usage: npm run bench -- [--n 200] [--reps 3] [--out bench-results.json]
                        [--proxy-deletion-grace-ms <ms>] [--only pulumi|server|watch|event-loop]
                        [--through preview|up|update|destroy]  (the last CLI operation of a round)
                        [--toolchains pinned,oldest,parallel-diff]  (the CLIs the Pulumi runs compare)
                        [--package-root <dir>]  (the package under test; default: this one)
       npm run bench -- --backends local,kube [--n 200,1000] [--reps 3,1] [--only pulumi|server|services]
                        [--out <file>]  (services: the Pulumi runs of N Services that wait for their revision)
       npm run bench -- --backends local,kube --only minting [--controller-workers 1,] [--reps 3] [--out <file>]
                        (1,000 Services minted per round; an empty --controller-workers value: the default)
                        (the local server against kube-apiserver, and this provider against pulumi-kubernetes;
                        --n and --reps are lists, --reps matched to --n by position; the first is the server
                        section's rounds too)`;

const SECTIONS = ["pulumi", "server", "watch", "event-loop"] as const;
export type Section = (typeof SECTIONS)[number];

export function options() {
  const { values } = parseArgs({
    options: {
      n: { type: "string", default: "200" },
      reps: { type: "string", default: "3" },
      out: { type: "string", default: "bench-results.json" },
      "proxy-deletion-grace-ms": { type: "string" },
      only: { type: "string" },
      through: { type: "string", default: "destroy" },
      toolchains: { type: "string", default: "pinned" },
      "package-root": { type: "string" },
      backends: { type: "string" },
      "controller-workers": { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const positive = (flag: string, text: string) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`--${flag}: "${text}" is not a positive integer`);
    return value;
  };
  const grace = values["proxy-deletion-grace-ms"];
  if (values.backends !== undefined && values.only === "minting") {
    const minting = mintingOptions(values, positive);
    return { scale: undefined, minting, out: values.out, packageRoot: minting.packageRoot };
  }
  if (values.backends !== undefined) {
    const scale = scaleOptions(values, positive);
    return { scale, out: values.out, packageRoot: scale.packageRoot };
  }
  if (values.only !== undefined && !SECTIONS.includes(values.only as Section))
    throw new Error(`--only: "${values.only}" is none of ${SECTIONS.join(", ")}`);
  // Each operation needs the ones before it (an update needs the stack up), so a round runs a prefix.
  const last = OPERATIONS.indexOf(values.through as Operation);
  if (last === -1) throw new Error(`--through: "${values.through}" is none of ${OPERATIONS.join(", ")}`);
  return {
    scale: undefined,
    n: positive("n", values.n),
    operations: OPERATIONS.slice(0, last + 1),
    reps: positive("reps", values.reps),
    out: values.out,
    proxyDeletionGraceMs: grace === undefined ? undefined : Number(grace),
    only: values.only as Section | undefined,
    toolchains: parseToolchains(values.toolchains),
    packageRoot: path.resolve(values["package-root"] ?? path.resolve(__dirname, "../..")),
  };
}

/** `--backends local,kube --only minting [--controller-workers 1,] [--reps 3]`: the controller alone. */
function mintingOptions(
  values: { backends?: string; reps: string; "package-root"?: string; "controller-workers"?: string },
  positive: (flag: string, text: string) => number,
): MintingOptions {
  const workers = (values["controller-workers"] ?? "").split(",").map((text) => {
    return text === "" ? undefined : positive("controller-workers", text);
  });
  return {
    packageRoot: path.resolve(values["package-root"] ?? path.resolve(__dirname, "../..")),
    workers,
    reps: positive("reps", values.reps.split(",")[0] ?? "3"),
    backends: BACKENDS.filter((name) => values.backends?.split(",").includes(name)),
  };
}

/** `--backends local,kube`: both backends in one run, `--n` and `--reps` as lists; `--only services`: the
 * Pulumi runs alone, of Services. */
function scaleOptions(
  values: { backends?: string; n: string; reps: string; only?: string; "package-root"?: string },
  positive: (flag: string, text: string) => number,
): ScaleOptions {
  const backends = new Set(values.backends?.split(","));
  if (backends.size !== BACKENDS.length || !BACKENDS.every((name) => backends.has(name)))
    throw new Error(
      `--backends: "${values.backends}" is not ${BACKENDS.join(",")} (the comparison needs both)`,
    );
  const only = ["pulumi", "server", "services"];
  if (values.only !== undefined && !only.includes(values.only))
    throw new Error(`--only: with --backends, one of ${only.join(", ")} or minting, not "${values.only}"`);
  const ns = values.n.split(",").map((text) => positive("n", text));
  const reps = values.reps.split(",").map((text) => positive("reps", text));
  const pulumi = ns.map((n, index) => ({ n, reps: reps[Math.min(index, reps.length - 1)] as number }));
  return {
    packageRoot: path.resolve(values["package-root"] ?? path.resolve(__dirname, "../..")),
    serverReps: reps[0] as number,
    pulumi: values.only === "server" ? [] : pulumi,
    workload: values.only === "services" ? "services" : "objects",
    server: values.only === undefined || values.only === "server",
  };
}

/** The options of the default sections (no --backends). */
export type Options = Exclude<
  Extract<ReturnType<typeof options>, { scale: undefined }>,
  { minting: MintingOptions }
>;
