#!/usr/bin/env bash
# Makes the peer provider available for the benchmark: pulumi-kubernetes' plugin built once from Go modules (the
# wrapper module in peer/, whose provider/v4 requirement is the pin) and its npm SDK of the same version, both
# cached outside the repository, keyed by version. `npm run bench -- --backends ...` builds them; the tests never
# do (a cold build takes about 17 minutes on 2 cores and 4.6 GB): test/kube/pulumi-kubernetes.test.ts runs when
# they are built. Idempotent; prints progress to stderr.
#
#   scripts/toolchain/peer.sh              ensure both, print nothing on stdout
#   scripts/toolchain/peer.sh --print-dir  ensure both, then print the directory holding bin/ and sdk/
#   scripts/toolchain/peer.sh --if-built   build nothing: print that directory if both are there, else nothing
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The release whose provider commit the pinned pseudo-version is; the npm SDK the bench uses is the same.
version=4.24.1
cache_root=${EXAMPLEDEV_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/exampledev-pulumi}
dir="$cache_root/pulumi-kubernetes-v$version"
bin_dir="$dir/bin"
binary="$bin_dir/pulumi-resource-kubernetes"
sdk_dir="$dir/sdk"
module=github.com/pulumi/pulumi-kubernetes/provider/v4

say() { echo "[toolchain] $*" >&2; }
fail() { say "error: $*"; exit 1; }

# shellcheck source=../lib/go-build.sh
source "$here/../lib/go-build.sh"

build_plugin() {
  go_build_staging "$cache_root" peer-build "pulumi-kubernetes $version"
  local started=$SECONDS
  cp "$here/peer/go.mod" "$here/peer/go.sum" "$here/peer/main.go" "$staging/"
  say "downloading $module"
  local module_dir
  module_dir=$(cd "$staging" && go list -m -f '{{.Dir}}' "$module")
  [[ -n "$module_dir" ]] || (cd "$staging" && go mod download "$module")
  module_dir=$(cd "$staging" && go list -m -f '{{.Dir}}' "$module")
  # Upstream's generate.go stamps the version into the schema and compacts both files; run as it is.
  cp "$module_dir/cmd/pulumi-resource-kubernetes/"{generate.go,schema.json,terraform-mapping.json} "$staging/"
  chmod u+w "$staging"/*
  say "generating the embedded schema (about 3 minutes cold: it compiles pulumi's codegen)"
  (cd "$staging" && VERSION=$version go run generate.go)
  say "building pulumi-resource-kubernetes $version into $bin_dir"
  say "  (first build: about 17 minutes on 2 cores, peak 4.6 GB; later runs reuse the cache)"
  rm "$staging"/{generate.go,schema.json,terraform-mapping.json}
  (cd "$staging" && CGO_ENABLED=0 go build -v -trimpath \
    -ldflags "-s -w -X $module/pkg/version.Version=$version" -o "$staging/pulumi-resource-kubernetes" . 2>&1 |
    go_build_progress pulumi-kubernetes 100)
  [[ -x "$staging/pulumi-resource-kubernetes" ]] || fail "go build did not produce pulumi-resource-kubernetes"
  # Moved into place only once built, so an interrupted build never leaves a half plugin behind.
  mkdir -p "$bin_dir"
  mv "$staging/pulumi-resource-kubernetes" "$binary"
  say "built pulumi-resource-kubernetes in $((SECONDS - started))s"
}

# The SDK with the project's exact @pulumi/pulumi beside it, so a program loads one copy of the engine's SDK.
# Its install script would download the plugin: skipped, the plugin is the one built above.
install_sdk() {
  local pulumi_version staging_sdk
  pulumi_version=$(node -p "require('$here/../../package-lock.json').packages['node_modules/@pulumi/pulumi'].version")
  staging_sdk=$(mktemp -d "$cache_root/peer-sdk.XXXXXX")
  say "installing @pulumi/kubernetes@$version (with @pulumi/pulumi@$pulumi_version) into $sdk_dir"
  echo '{"private": true}' >"$staging_sdk/package.json"
  (cd "$staging_sdk" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
    "@pulumi/kubernetes@$version" "@pulumi/pulumi@$pulumi_version" >&2)
  mkdir -p "$dir"
  rm -rf "$sdk_dir"
  mv "$staging_sdk" "$sdk_dir"
}

sdk_installed() { [[ -f "$sdk_dir/node_modules/@pulumi/kubernetes/package.json" ]]; }

if [[ "${1:-}" == "--if-built" ]]; then
  if [[ -x "$binary" ]] && sdk_installed; then echo "$dir"; fi
  exit 0
fi
if [[ ! -x "$binary" ]]; then
  build_plugin
fi
if ! sdk_installed; then
  install_sdk
fi
say "pulumi-resource-kubernetes $version at $binary, its SDK in $sdk_dir"
if [[ "${1:-}" == "--print-dir" ]]; then echo "$dir"; fi
