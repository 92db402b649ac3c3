#!/usr/bin/env bash
# Makes a real Kubernetes control plane available: kube-apiserver and kube-controller-manager (for its garbage
# collector) built once from Go modules and cached outside the repository beside the Pulumi CLI, keyed by
# version, etcd (scripts/toolchain/etcd.sh, built from go.etcd.io/etcd/server/v3), and Debian's haproxy (the
# load balancer of the highly available environment, `npm run kube -- --apiservers 2`). Idempotent; prints
# progress to stderr.
#
# The release is one of the wrapper modules kube/v1.<minor>/ (each one's k8s.io/kubernetes requirement is its
# pin): the newest by default, or the minor EXAMPLEDEV_KUBE_VERSION names (`1.35`, `v1.35` or the pinned
# `1.35.4`). A version outside them is refused, naming the supported range.
#
#   scripts/toolchain/kube.sh                 ensure all three, print nothing on stdout
#   scripts/toolchain/kube.sh --print-bin-dir ensure all three, then print the directory holding both binaries
#   scripts/toolchain/kube.sh --print-paths   ensure all three, then print `kube <dir>`, `etcd <dir>`,
#                                             `version <kube version>` and `etcd-version <etcd version>` lines
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { echo "[toolchain] $*" >&2; }
fail() { say "error: $*"; exit 1; }

# The supported minors, oldest first: the wrapper modules there are.
mapfile -t minors < <(cd "$here/kube" && ls -d v1.* | sed 's/^v//' | sort -t. -k2,2n)
((${#minors[@]} > 0)) || fail "no wrapper module in scripts/toolchain/kube/v1.*"
range="${minors[0]} to ${minors[-1]}"
asked=${EXAMPLEDEV_KUBE_VERSION:-${minors[-1]}}
asked=${asked#v}
minor=$(echo "$asked" | cut -d. -f1,2)
module="$here/kube/v$minor"
[[ "$asked" =~ ^1\.[0-9]+(\.[0-9]+)?$ && -f "$module/go.mod" ]] ||
  fail "Kubernetes $asked (EXAMPLEDEV_KUBE_VERSION) is outside the supported range $range (scripts/toolchain/kube/v1.*; docs/kubernetes.md#supported-versions)"
version=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2 }' "$module/go.mod")
[[ -n "$version" ]] || fail "$module/go.mod does not require k8s.io/kubernetes"
[[ "$asked" == "$minor" || "v$asked" == "$version" ]] ||
  fail "Kubernetes $asked (EXAMPLEDEV_KUBE_VERSION) is not the pinned $minor release: $version"
cache_root=${EXAMPLEDEV_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/exampledev-pulumi}
bin_dir="$cache_root/kube-apiserver-$version/bin"

# shellcheck source=../lib/as-root.sh
source "$here/../lib/as-root.sh"
# shellcheck source=../lib/go-build.sh
source "$here/../lib/go-build.sh"

# haproxy balances the kube-apiservers of the HA environment (kube/balancer.ts runs its own; the package's
# service, which listens on nothing until configured, is stopped and kept from starting at boot).
ensure_haproxy() {
  if [[ ! -x /usr/sbin/haproxy ]]; then
    command -v apt-get >/dev/null 2>&1 || fail "apt-get not found: install haproxy 2.x at /usr/sbin/haproxy"
    say "installing Debian package haproxy"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy
  fi
  if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
    if systemctl is-enabled --quiet haproxy 2>/dev/null || systemctl is-active --quiet haproxy 2>/dev/null; then
      as_root systemctl disable --now haproxy
    fi
  fi
  say "$(/usr/sbin/haproxy -v | head -1 | cut -d' ' -f1-3) at /usr/sbin/haproxy"
}

declare -A estimate=(
  [kube-apiserver]="first build: about 8 minutes"
  [kube-controller-manager]="after kube-apiserver: about 4 minutes"
)
# kube-apiserver compiles about 2000 packages; kube-controller-manager shares most of them and adds about 300
# (on 2 cores with modules cached: kube-apiserver 7.5 min; then kube-controller-manager 237 s, 1.5 min of CPU,
# while other builds shared the machine, 2026-11-25).
build() {
  go_build_staging "$cache_root" kube-build "$* $version"
  # kubectl refuses the v0.0.0-master a plain build reports: stamp the release in both places that carry it.
  local ldflags="-s -w"
  local pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=${minor#1.} -X $pkg.gitTreeState=clean"
  done
  local name started
  for name in "$@"; do
    started=$SECONDS
    say "building $name $version from Go modules into $bin_dir"
    say "  (${estimate[$name]} on 2 cores, plus module downloads; later runs reuse the cache)"
    (cd "$module" && CGO_ENABLED=0 go build -v -trimpath -ldflags "$ldflags" \
      -o "$staging/$name" "k8s.io/kubernetes/cmd/$name" 2>&1 | go_build_progress "$name" 200)
    [[ -x "$staging/$name" ]] || fail "go build did not produce $name"
    # Moved into place only once built, so an interrupted build never leaves a half toolchain behind.
    mkdir -p "$bin_dir"
    mv "$staging/$name" "$bin_dir/"
    say "built $name in $((SECONDS - started))s"
  done
}

ensure_haproxy
etcd_dir=$(bash "$here/etcd.sh" --print-bin-dir)
missing=()
for name in kube-apiserver kube-controller-manager; do
  if [[ ! -x "$bin_dir/$name" ]] || ! "$bin_dir/$name" --version 2>/dev/null | grep -qx "Kubernetes $version"; then
    missing+=("$name")
  fi
done
if ((${#missing[@]} > 0)); then build "${missing[@]}"; fi
say "kube-apiserver and kube-controller-manager $version at $bin_dir (supported: $range)"
case "${1:-}" in
  --print-bin-dir) echo "$bin_dir" ;;
  --print-paths)
    etcd_version=$(awk '$1 == "require" && $2 == "go.etcd.io/etcd/server/v3" { print $3 }' "$here/etcd/go.mod")
    printf 'kube %s\netcd %s\nversion %s\netcd-version %s\n' "$bin_dir" "$etcd_dir" "$version" "${etcd_version#v}"
    ;;
esac
