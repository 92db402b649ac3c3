#!/usr/bin/env bash
# Makes the pinned Pulumi CLI and its Node.js language host available, building them from Go modules once and
# caching the binaries outside the repository, keyed by version. Idempotent; prints progress to stderr.
#
#   scripts/toolchain/build.sh                        ensure the toolchain, print nothing on stdout
#   scripts/toolchain/build.sh --print-bin-dir        ensure it, then print the directory to put first on PATH
#   scripts/toolchain/build.sh --version X [...]      the same for another version with a wrapper module here
#                                                     (cli/pulumi-vX.mod: the oldest the package supports)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

say() { echo "[toolchain] $*" >&2; }

print_bin_dir=false
version=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --print-bin-dir) print_bin_dir=true ;;
    --version) version=${2:?--version takes a Pulumi version such as 3.259.0}; shift ;;
    *) say "error: unknown argument $1 (takes --print-bin-dir and --version X)"; exit 2 ;;
  esac
  shift
done

# The CLI must match the @pulumi/pulumi SDK the project builds and tests with: package.json declares a range
# (^3.x, as Pulumi's own packages do), so read the exact version the lockfile pins, not a second copy of it.
pinned=$(node -p "require('$repo/package-lock.json').packages['node_modules/@pulumi/pulumi'].version")
version=${version:-$pinned}
# The pinned version builds from cli/go.mod; another one from its own module file beside it (go build -modfile).
modfile="$here/cli/go.mod"
[[ "$version" != "$pinned" ]] && modfile="$here/cli/pulumi-v$version.mod"
if [[ ! -f "$modfile" ]]; then
  say "error: no wrapper module for Pulumi v$version: scripts/toolchain/cli has go.mod for v$pinned (the lockfile's)"
  say "and pulumi-v<version>.mod for older versions the package supports"
  exit 2
fi
modflag=(-modfile="$modfile")
cache_root=${EXAMPLEDEV_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/exampledev-pulumi}
bin_dir="$cache_root/pulumi-v$version/bin"

finish() {
  # The dynamic-provider plugin ships in the npm package; it resolves @pulumi/pulumi from the program's
  # directory at run time, so a copy next to the CLI serves every clone that shares this cache.
  if [[ ! -x "$1/pulumi-resource-pulumi-nodejs" && -w "$1" ]]; then
    install -m 0755 "$repo/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs" "$1/"
  fi
  if $print_bin_dir; then echo "$1"; fi
  exit 0
}

# A pulumi of the right version already on PATH (for example an official install) is used as it is.
if on_path=$(command -v pulumi 2>/dev/null) && [[ "$("$on_path" version 2>/dev/null)" == "v$version" ]]; then
  say "using pulumi v$version from PATH at $on_path"
  if $print_bin_dir; then dirname "$on_path"; fi
  exit 0
fi

ensure_go() {
  command -v go >/dev/null 2>&1 && return 0
  if [[ -x /usr/local/go/bin/go ]]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    say "error: Go is required to build the Pulumi CLI v$version (no prebuilt binary can be downloaded here)."
    say "Install Go 1.26 or newer (https://go.dev/doc/install, or 'apt-get install golang-go' where recent enough),"
    say "or put a pulumi v$version on PATH, then run this again."
    exit 1
  fi
}

# Our Node.js host (cli/nodejs-host) changes more often than the CLI: a stamp of its sources next to the
# binary says which sources it was built from, and a cached toolchain rebuilds only the host (seconds) when
# they changed.
host_stamp=".nodejs-host-$(cat "$here"/cli/nodejs-host/*.go "$modfile" "${modfile%.mod}.sum" | sha256sum | cut -c1-16)"
build_host() {
  (cd "$here/cli" && go build "${modflag[@]}" -trimpath -ldflags "-s -w -X main.version=$version" \
    -o "$1/pulumi-language-nodejs" ./nodejs-host)
}

if [[ -x "$bin_dir/pulumi" && -x "$bin_dir/pulumi-language-nodejs" && -x "$bin_dir/pulumi-language-nodejs-v3.68.0" ]] &&
  [[ "$("$bin_dir/pulumi" version)" == "v$version" ]]; then
  if [[ ! -f "$bin_dir/$host_stamp" && -w "$bin_dir" ]]; then
    ensure_go
    say "rebuilding the Node.js language host (its sources changed)"
    host_staging=$(mktemp -d "$cache_root/host.XXXXXX")
    CGO_ENABLED=0 build_host "$host_staging"
    mv "$host_staging/pulumi-language-nodejs" "$bin_dir/pulumi-language-nodejs"
    rm -rf "$host_staging" "$bin_dir"/.nodejs-host-*
    touch "$bin_dir/$host_stamp"
  fi
  finish "$bin_dir"
fi

ensure_go

if ! grep -Eq "^\s+github.com/pulumi/pulumi/pkg/v3 v$version( |$)" "$modfile"; then
  say "error: $modfile does not pin github.com/pulumi/pulumi/pkg/v3 v$version; run scripts/toolchain/newest-pulumi.sh --apply"
  exit 1
fi

mkdir -p "$bin_dir"
staging=$(mktemp -d "$cache_root/build.XXXXXX")
trap 'rm -rf "$staging"' EXIT
export CGO_ENABLED=0

# go build -v names each package as it compiles it: turn that into a progress line every 100 packages.
progress() {
  awk -v what="$1" '{ n++; if (n % 100 == 0) { printf "[toolchain]   %s: %d packages compiled\n", what, n > "/dev/stderr" } }
    /^(go: |#|.*\.go:[0-9]+)/ { print > "/dev/stderr" }'
}

started=$SECONDS
say "building the Pulumi CLI v$version from Go modules into $bin_dir"
say "  (first build: about 4 minutes on 2 cores, plus module downloads; later runs reuse the cache)"
(cd "$here/cli" && go build "${modflag[@]}" -v -trimpath \
  -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version" \
  -o "$staging/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi 2>&1 | progress "pulumi CLI")
say "building the Node.js language host"
build_host "$staging"
(cd "$here/compat-host" && go build -v -trimpath -ldflags "-s -w" \
  -o "$staging/pulumi-language-nodejs-v3.68.0" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs \
  2>&1 | progress "language host v3.68.0")

# Move into place only once everything built, so an interrupted build never leaves a half toolchain behind.
mv "$staging"/* "$bin_dir/"
touch "$bin_dir/$host_stamp"
say "built in $((SECONDS - started))s: $("$bin_dir/pulumi" version)"
finish "$bin_dir"
