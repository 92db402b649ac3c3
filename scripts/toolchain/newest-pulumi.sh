#!/usr/bin/env bash
# Finds the newest Pulumi release this machine can build the toolchain of: the newest version that the npm
# registry serves as @pulumi/pulumi and whose github.com/pulumi/pulumi/pkg/v3 the Go module proxy hands out
# (it has refused whole ranges before). Prints it; with --apply, moves the pin to it: scripts/toolchain/cli's
# wrapper module (pkg/v3 and sdk/v3) and @pulumi/pulumi in package-lock.json (package.json's range is left
# alone: its floor is the oldest supported version). scripts/toolchain/build.sh then builds it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "[newest-pulumi] $*" >&2; }
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"

apply=false
[[ "${1:-}" == "--apply" ]] && apply=true

npm_versions=$(npm view @pulumi/pulumi versions --json | node -e \
  'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(v.filter((x) => /^3\.\d+\.\d+$/.test(x)).join("\n"))')
go_versions=$(cd "$here/cli" && go list -m -versions github.com/pulumi/pulumi/pkg/v3 | tr ' ' '\n' | sed -n 's/^v//p')
found=""
for version in $(comm -12 <(sort <<<"$npm_versions") <(sort <<<"$go_versions") | sort -t. -k1,1nr -k2,2nr -k3,3nr); do
  if (cd "$here/cli" && go mod download "github.com/pulumi/pulumi/pkg/v3@v$version" "github.com/pulumi/pulumi/sdk/v3@v$version") 2>/dev/null; then
    found=$version
    break
  fi
  say "v$version is listed but the Go module proxy refuses it"
done
[[ -n "$found" ]] || { say "error: no version is served by both registries"; exit 1; }
echo "$found"
if $apply; then
  say "pinning v$found: scripts/toolchain/cli/go.mod and package-lock.json"
  (cd "$here/cli" && go get "github.com/pulumi/pulumi/pkg/v3@v$found" "github.com/pulumi/pulumi/sdk/v3@v$found" && go mod tidy)
  # npm install moves package.json's range too: put the range back, and the lock keeps v$found within it.
  saved=$(mktemp)
  cp "$repo/package.json" "$saved"
  (cd "$repo" && npm install --no-audit --no-fund "@pulumi/pulumi@$found" && cp "$saved" package.json &&
    npm install --no-audit --no-fund)
  rm -f "$saved"
  say "done: run npm ci && npm test (the build of v$found is cached on first use)"
fi
