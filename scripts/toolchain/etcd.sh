#!/usr/bin/env bash
# Makes etcd available: built once from go.etcd.io/etcd/server/v3 (etcdmain.Main, through the wrapper module in
# etcd/, whose requirement is the pin) and cached outside the repository beside the other toolchain builds, keyed
# by version. Idempotent; prints progress to stderr. Debian's etcd-server (3.4, unmaintained) is not used.
#
#   scripts/toolchain/etcd.sh                 ensure it, print nothing on stdout
#   scripts/toolchain/etcd.sh --print-bin-dir ensure it, then print the directory holding `etcd`
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=$(awk '$1 == "require" && $2 == "go.etcd.io/etcd/server/v3" { print $3 }' "$here/etcd/go.mod")
cache_root=${EXAMPLEDEV_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/exampledev-pulumi}
bin_dir="$cache_root/etcd-$version/bin"

say() { echo "[toolchain] $*" >&2; }
fail() { say "error: $*"; exit 1; }

[[ -n "$version" ]] || fail "scripts/toolchain/etcd/go.mod does not require go.etcd.io/etcd/server/v3"
# shellcheck source=../lib/go-build.sh
source "$here/../lib/go-build.sh"

# The output is read whole first: grep -q stopping at its match would make etcd die of SIGPIPE (pipefail).
if [[ ! -x "$bin_dir/etcd" ]] || ! grep -qx "etcd Version: ${version#v}" <<<"$("$bin_dir/etcd" --version 2>/dev/null)"; then
  go_build_staging "$cache_root" etcd-build "etcd $version"
  started=$SECONDS
  say "building etcd $version from Go modules into $bin_dir"
  say "  (first build: about 2 minutes on 2 cores, plus module downloads; later runs reuse the cache)"
  (cd "$here/etcd" && CGO_ENABLED=0 go build -v -trimpath -ldflags "-s -w" -o "$staging/etcd" . 2>&1 |
    go_build_progress etcd 100)
  [[ -x "$staging/etcd" ]] || fail "go build did not produce etcd"
  mkdir -p "$bin_dir"
  mv "$staging/etcd" "$bin_dir/"
  say "built etcd in $((SECONDS - started))s"
fi
say "etcd ${version#v} at $bin_dir"
if [[ "${1:-}" == "--print-bin-dir" ]]; then echo "$bin_dir"; fi
