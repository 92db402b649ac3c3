#!/usr/bin/env bash
# `npm run build`: compiles the package into dist/ and stamps it (dist/.build-stamp, dated when the build
# started), so that `scripts/run-built.sh` knows dist/ is current whichever command built it: the demo,
# `npm run generate`, the benchmark or a contributor's own `npm run build`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p dist
# Dated at the start: a source saved during the build is newer than the stamp, and triggers the next build.
next=$(mktemp dist/.build-stamp.XXXXXX)
trap 'rm -f "$next"' EXIT
tsc -p tsconfig.build.json
tsc -p tsconfig.native.json
node dist/scripts/node10-types.js
node dist/scripts/server-package.js
mv -f "$next" dist/.build-stamp
