#!/usr/bin/env bash
# Builds `kstatus` (scripts/toolchain/kstatus: sigs.k8s.io/cli-utils' status.Compute over JSON on stdin) once
# and caches it outside the repository, keyed by the cli-utils version and a hash of the wrapper's sources.
# Idempotent; progress on stderr; prints the binary's path on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { echo "[toolchain] $*" >&2; }
fail() { say "error: $*"; exit 1; }

module="$here/kstatus"
version=$(awk '$1 == "sigs.k8s.io/cli-utils" && $2 ~ /^v/ { print $2 }' "$module/go.mod")
[[ -n "$version" ]] || fail "$module/go.mod does not require sigs.k8s.io/cli-utils"
stamp=$(cat "$module/go.mod" "$module/go.sum" "$module/main.go" | sha256sum | cut -c1-12)
cache_root=${EXAMPLEDEV_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/exampledev-pulumi}
bin="$cache_root/kstatus-$version-$stamp/kstatus"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

# shellcheck source=../lib/go-build.sh
source "$here/../lib/go-build.sh"
go_build_staging "$cache_root" kstatus "kstatus (cli-utils $version)"
say "building kstatus from sigs.k8s.io/cli-utils $version (about a minute cold)"
(cd "$module" && CGO_ENABLED=0 go build -v -trimpath -ldflags "-s -w" -o "$staging/kstatus" . 2>&1) |
  go_build_progress kstatus 20
[[ -x "$staging/kstatus" ]] || fail "the kstatus build failed"
mkdir -p "$(dirname "$bin")"
mv "$staging/kstatus" "$bin"
say "kstatus ready: $bin"
echo "$bin"
