#!/usr/bin/env bash
# Builds Pulumi YAML (github.com/pulumi/pulumi-yaml, pinned by scripts/toolchain/yaml/go.mod against the same
# pkg/sdk as the pinned CLI): the language host `pulumi-language-yaml` and the converter
# `pulumi-converter-yaml` (`pulumi convert --from yaml`). Built once and cached outside the repository, keyed by
# the pulumi-yaml version and a hash of the wrapper module; then linked next to the pinned CLI, where the CLI
# looks for its bundled language hosts first (so it prints no "using … from $PATH" warning). Idempotent;
# progress on stderr; prints the directory holding both binaries on stdout.
#
#   scripts/toolchain/yaml.sh                  build if needed, link next to the CLI, print the directory
#   scripts/toolchain/yaml.sh --link-if-built  link if already built, else do nothing (scripts/pulumi-env.sh)
#   ... --cli-bin DIR                          link into DIR (default: scripts/toolchain/build.sh --print-bin-dir)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { echo "[toolchain] $*" >&2; }
fail() { say "error: $*"; exit 1; }

link_only=false
cli_bin=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --link-if-built) link_only=true ;;
    --cli-bin) cli_bin=${2:?--cli-bin takes the directory of the pulumi binary}; shift ;;
    *) fail "unknown argument $1 (takes --link-if-built and --cli-bin DIR)" ;;
  esac
  shift
done

module="$here/yaml"
version=$(awk '$1 == "require" && $2 == "github.com/pulumi/pulumi-yaml" { print $3 }' "$module/go.mod")
[[ -n "$version" ]] || fail "$module/go.mod does not require github.com/pulumi/pulumi-yaml"
stamp=$(cat "$module"/go.mod "$module"/go.sum "$module"/tools.go "$module"/*.patch | sha256sum | cut -c1-12)
cache_root=${EXAMPLEDEV_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/exampledev-pulumi}
dir="$cache_root/pulumi-yaml-$version-$stamp"
commands=(pulumi-language-yaml pulumi-converter-yaml)

link() {
  [[ -n "$cli_bin" ]] || cli_bin=$(bash "$here/build.sh" --print-bin-dir)
  [[ -w "$cli_bin" ]] || return 0
  for command in "${commands[@]}"; do
    [[ "$(readlink "$cli_bin/$command" 2>/dev/null)" == "$dir/$command" ]] || ln -sfn "$dir/$command" "$cli_bin/$command"
  done
}

if [[ -x "$dir/pulumi-language-yaml" && -x "$dir/pulumi-converter-yaml" ]]; then
  link
  $link_only || echo "$dir"
  exit 0
fi
$link_only && exit 0

# shellcheck source=../lib/go-build.sh
source "$here/../lib/go-build.sh"
go_build_staging "$cache_root" pulumi-yaml "Pulumi YAML $version"
say "building Pulumi YAML $version (language host and converter; minutes on a cold Go cache)"
started=$SECONDS
# pulumi-yaml v1.25.0 is written against pkg/sdk v3.206.0; the CLI's v3.276.0 moved the plugin host into pkg
# and changed a few calls, which the patch follows. The wrapper builds from a patched copy of the module.
# (Asked from the empty staging directory: the wrapper's own replace points at the copy made here.)
source_dir=$(cd "$staging" && go mod download -json "github.com/pulumi/pulumi-yaml@$version" | awk -F'"' '$2 == "Dir" { print $4 }')
[[ -d "$source_dir" ]] || fail "cannot download github.com/pulumi/pulumi-yaml $version"
cp "$module"/go.mod "$module"/go.sum "$module"/tools.go "$staging/"
cp -r "$source_dir" "$staging/pulumi-yaml"
chmod -R u+w "$staging/pulumi-yaml"
for patch in "$module"/*.patch; do
  patch --quiet -p1 -d "$staging/pulumi-yaml" <"$patch" || fail "$(basename "$patch") does not apply to pulumi-yaml $version"
done
mkdir "$staging/bin"
(cd "$staging" && CGO_ENABLED=0 go build -v -trimpath -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$version" \
  -o "$staging/bin/" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml github.com/pulumi/pulumi-yaml/cmd/pulumi-converter-yaml 2>&1) |
  go_build_progress "pulumi-yaml" 100
for command in "${commands[@]}"; do
  [[ -x "$staging/bin/$command" ]] || fail "the Pulumi YAML build failed ($command missing)"
done
mkdir -p "$dir"
mv "$staging"/bin/pulumi-*-yaml "$dir/"
say "Pulumi YAML $version ready in $((SECONDS - started))s: $dir"
link
echo "$dir"
