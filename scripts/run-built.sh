#!/usr/bin/env bash
# `npm run server`, `controller`, `webhook`, `kube`, `registry` and `policy-report`: runs a compiled entry point
# of the package with the pinned Node, building first only when dist/ is missing or older than the sources,
# and then becomes that Node process
# (`exec`), so the process you started is the server itself once npm is gone from the picture: a single
# SIGTERM or Ctrl-C to it (npm forwards SIGINT and SIGTERM to its child) stops it, with nothing left behind.
#
#   bash scripts/run-built.sh dist/server/main.js [args...]
#
# Freshness: dist/.build-stamp records when the last successful `npm run build` started (scripts/build.sh
# writes it, whoever ran the build). dist/ is current when the entry point exists and no build input (.ts and
# .json files under the compiled folders, the tsconfigs, package.json) nor any of those folders (an added,
# renamed or deleted file) changed after the stamp.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
entry=${1:?usage: run-built.sh <dist entry point> [args...]}
shift
stamp="$repo/dist/.build-stamp"
# The compiled folders are tsconfig.build.json's "include" (one list: a new top folder is an input at once).
mapfile -t folders < <(node -p 'require(process.argv[1]).include.join("\n")' "$repo/tsconfig.build.json")
inputs=("${folders[@]}" tsconfig.json tsconfig.build.json package.json)

stale() {
  [[ -f "$stamp" && -f "$repo/$entry" ]] || return 0
  local changed
  changed=$(cd "$repo" && find "${inputs[@]}" -name node_modules -prune -o -newer "$stamp" \
    \( -type d -o -name '*.ts' -o -name '*.json' \) -print -quit 2>/dev/null)
  [[ -n "$changed" ]]
}

if stale; then
  echo "[run-built] dist/ is missing or older than the sources: npm run build" >&2
  (cd "$repo" && npm run build >&2) || {
    echo "[run-built] the build failed; not starting $entry" >&2
    exit 1
  }
fi

node="$repo/node_modules/.bin/node"
[[ -x "$node" ]] || node=node
exec "$node" "$repo/$entry" "$@"
