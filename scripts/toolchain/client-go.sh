#!/usr/bin/env bash
# Builds `client-go` (scripts/toolchain/client-go: an informer, server-side apply and a resumed watch against an API server) once
# and caches it outside the repository, keyed by the client-go version and a hash of the wrapper's sources.
# Idempotent; progress on stderr; prints the binary's path on stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { echo "[toolchain] $*" >&2; }
fail() { say "error: $*"; exit 1; }

module="$here/client-go"
version=$(awk '$1 == "k8s.io/client-go" && $2 ~ /^v/ { print $2 }' "$module/go.mod")
[[ -n "$version" ]] || fail "$module/go.mod does not require k8s.io/client-go"
stamp=$(cat "$module/go.mod" "$module/go.sum" "$module/main.go" | sha256sum | cut -c1-12)
cache_root=${EXAMPLEDEV_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/exampledev-pulumi}
bin="$cache_root/client-go-$version-$stamp/client-go"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

# shellcheck source=../lib/go-build.sh
source "$here/../lib/go-build.sh"
go_build_staging "$cache_root" client-go "client-go $version"
say "building the client-go program at k8s.io/client-go $version (a minute or two cold)"
(cd "$module" && CGO_ENABLED=0 go build -v -trimpath -ldflags "-s -w" -o "$staging/client-go" . 2>&1) |
  go_build_progress client-go 20
[[ -x "$staging/client-go" ]] || fail "the client-go build failed"
mkdir -p "$(dirname "$bin")"
mv "$staging/client-go" "$bin"
say "client-go program ready: $bin"
echo "$bin"
