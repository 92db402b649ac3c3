#!/usr/bin/env bash
# The full form of the highly available environment's faults (issue 48; docs/kubernetes.md#faults-and-what-they-do):
# test/kube/ha-faults.test.ts with 200 Services instead of the few `npm test` runs, then its figures as a table:
# per step the Services, the revisions, the kills, double mints, missing, and the time of each `pulumi up` with
# and without the faults.
#
#   bash scripts/kube-faults.sh [--services <even n>] [--figures <file.jsonl>]
#
# Needs the toolchain (`npm run setup`) and takes about 10 minutes on 2 cores for 200 Services.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
services=200
figures=""
while (($#)); do
  case "$1" in
  --services) services=${2:?--services needs a number}; shift 2 ;;
  --figures) figures=${2:?--figures needs a file}; shift 2 ;;
  -h | --help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "kube-faults: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
[[ "$services" =~ ^[1-9][0-9]*$ ]] && ((services % 2 == 0)) ||
  { echo "kube-faults: --services $services is not an even number of at least 2" >&2; exit 2; }
[[ -n "$figures" ]] || figures=$(mktemp "${TMPDIR:-/tmp}/kube-faults.XXXXXX.jsonl")
: >"$figures"

cd "$repo"
export PATH="$repo/node_modules/.bin:$PATH"
bash scripts/setup.sh >&2
# The fixture's program imports the package from dist/.
npm run --silent build >&2
status=0
EXAMPLEDEV_HA_SERVICES=$services EXAMPLEDEV_HA_FIGURES=$figures \
  vitest run --project kube test/kube/ha-faults.test.ts || status=$?

node - "$figures" <<'EOF'
const lines = require("node:fs").readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean);
const steps = lines.map((line) => JSON.parse(line));
const s = (ms) => (typeof ms === "number" ? `${(ms / 1000).toFixed(1)} s` : "");
const rows = [["step", "killed", "up", "Services", "revisions", "double mints", "missing", "orphans", "lost", "note"]];
for (const step of steps) {
  if (step.step === "start" || step.step === "summary") continue;
  const killed = Array.isArray(step.killed) ? step.killed.join(" + ") : (step.killed ?? "");
  const up = step.step === "baseline" ? `create ${s(step.createMs)}, update ${s(step.updateMs)}`
    : step.step === "quorum lost" ? `failed after ${s(step.failedUpMs)}, then ${s(step.convergedUpMs)}` : s(step.ms);
  const note = step.step === "quorum lost"
    ? `cache list ${step.cacheList} (${step.cachedServices} Services), etcd back ${s(step.recoverMs)}, controller exits ${step.controllerExitsDuring}`
    : step.landed ? `fault at ${step.landed.written} written / ${step.landed.unminted} unminted, ${s(step.landed.afterMs)} in`
    : "";
  const extra = step.rejoinMs !== undefined ? `; rejoined ${s(step.rejoinMs)}` : step.restartMs !== undefined ? `; restarted ${s(step.restartMs)}` : "";
  rows.push([step.step, killed, up, step.services, step.revisions, step.doubleMints, step.missing, step.orphans, step.lost, note + extra]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i] ?? "").length)));
for (const row of rows) console.log(row.map((cell, i) => String(cell ?? "").padEnd(widths[i])).join("  ").trimEnd());
const start = steps.find((step) => step.step === "start");
const summary = steps.find((step) => step.step === "summary");
if (start) console.log(`\nenvironment: kube-apiserver ${start.kube}, etcd ${start.etcd}, started in ${s(start.ms)}`);
if (summary) console.log(`kills: ${summary.kills.length} (${summary.kills.join(", ")}); controller replica exits: ${summary.controllerExits.length}`);
EOF
echo "figures: $figures" >&2
exit "$status"
