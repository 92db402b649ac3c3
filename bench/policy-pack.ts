// Issue 40: the policy pack's cost per resource. Every resource policy of the pack (POLICIES, exemptions
// wrapper included) judges N resources the way the policy server does (a fresh copy of the inputs behind the
// unknown-checking proxy per policy, test/policy/harness.ts): a rule-breaking one per rule of the schema and
// the valid spec of each kind, in turn. The same run with policies that do nothing measures the copying, which
// is the engine's cost, not the pack's; the pack's own time is the difference. CPU time (user + system) of
// this process, which a busy machine disturbs less than wall time. Not an assertion; prints the numbers.
// Run: npx tsc -p bench/tsconfig.json && node dist/bench/policy-pack.js [--n 2000] [--reps 5]
import { parseArgs } from "node:util";
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { POLICIES } from "../policies/policies";
import { KIND_NAMES } from "../sdk/schema";
import { exampleResource, VALID_SPECS } from "../test/policy/fixtures";
import { runResourcePolicy, type TestResource } from "../test/policy/harness";
import { FAILING_CASES } from "../test/policy/rule-cases";
import { median } from "./stats";

const PACK = POLICIES.filter((policy): policy is ResourceValidationPolicy => "validateResource" in policy);
const NO_OPS: readonly ResourceValidationPolicy[] = PACK.map(({ name, description, enforcementLevel }) => ({
  name,
  description,
  enforcementLevel,
  validateResource: () => {},
}));

const SAMPLES: readonly TestResource[] = [
  ...KIND_NAMES.map((kind) => exampleResource(kind, `valid-${kind}`, VALID_SPECS[kind])),
  ...Object.values(FAILING_CASES).map(({ kind, name, spec }) => exampleResource(kind, name, spec)),
];

/** Runs the policies on n resources; returns the CPU milliseconds and the violations reported. */
async function judge(
  policies: readonly ResourceValidationPolicy[],
  n: number,
): Promise<{ ms: number; reports: number }> {
  let reports = 0;
  const started = process.cpuUsage();
  for (let index = 0; index < n; index++) {
    const resource = SAMPLES[index % SAMPLES.length] as TestResource;
    for (const policy of policies)
      reports += (await runResourcePolicy(policy, { ...resource, name: `${resource.name}-${index}` })).length;
  }
  const { user, system } = process.cpuUsage(started);
  return { ms: (user + system) / 1000, reports };
}

async function main() {
  const { values } = parseArgs({
    options: { n: { type: "string", default: "2000" }, reps: { type: "string", default: "5" } },
  });
  const n = Number(values.n);
  const reps = Number(values.reps);
  // Warms the JIT and the modules' lazy tables, untimed.
  await judge(PACK, SAMPLES.length);
  await judge(NO_OPS, SAMPLES.length);
  const pack: number[] = [];
  const copying: number[] = [];
  let reports = 0;
  for (let rep = 0; rep < reps; rep++) {
    const round = await judge(PACK, n);
    reports = round.reports;
    pack.push(round.ms);
    copying.push((await judge(NO_OPS, n)).ms);
  }
  const perResource = (ms: number) => `${((ms * 1000) / n).toFixed(0)} µs`;
  const rounds = (values: readonly number[]) => values.map((ms) => ms.toFixed(0)).join(", ");
  console.log(
    `${PACK.length} resource policies, ${n} resources (${SAMPLES.length} samples in turn), ${reports} violations`,
  );
  console.log(`pack + copies: median ${perResource(median(pack))} per resource (rounds: ${rounds(pack)} ms)`);
  console.log(
    `copies alone:  median ${perResource(median(copying))} per resource (rounds: ${rounds(copying)} ms)`,
  );
  console.log(`the pack's own: ${perResource(median(pack) - median(copying))} per resource`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
