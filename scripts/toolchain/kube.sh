#!/usr/bin/env bash
# Makes a real Kubernetes control plane available: kube-apiserver and kube-controller-manager (for its garbage
# collector) built once from Go modules (the wrapper module in kube/, whose k8s.io/kubernetes requirement is the
# pin) and cached outside the repository beside the Pulumi CLI, keyed by version; etcd from Debian's
# etcd-server. Idempotent; prints progress to stderr.
#
#   scripts/toolchain/kube.sh                 ensure all three, print nothing on stdout
#   scripts/toolchain/kube.sh --print-bin-dir ensure all three, then print the directory holding both binaries
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2 }' "$here/kube/go.mod")
cache_root=${EXAMPLEDEV_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/exampledev-pulumi}
bin_dir="$cache_root/kube-apiserver-$version/bin"

say() { echo "[toolchain] $*" >&2; }
fail() { say "error: $*"; exit 1; }

[[ -n "$version" ]] || fail "scripts/toolchain/kube/go.mod does not require k8s.io/kubernetes"

# shellcheck source=../lib/as-root.sh
source "$here/../lib/as-root.sh"
# shellcheck source=../lib/go-build.sh
source "$here/../lib/go-build.sh"

# Debian's etcd 3.4 is one that kube-apiserver 1.35 accepts (it needs the v3 API only). The tests start their
# own etcd on loopback ports, so the package's own service (on :2379) is stopped and kept from starting at boot.
ensure_etcd() {
  if ! command -v etcd >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || fail "apt-get not found: install etcd 3.4 or newer so that 'etcd' is on PATH"
    say "installing Debian package etcd-server"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends etcd-server
  fi
  if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
    if systemctl is-enabled --quiet etcd 2>/dev/null || systemctl is-active --quiet etcd 2>/dev/null; then
      as_root systemctl disable --now etcd
    fi
  elif [[ -x /etc/init.d/etcd ]] && /etc/init.d/etcd status >/dev/null 2>&1; then
    as_root /etc/init.d/etcd stop
  fi
  say "etcd $(etcd --version | awk '/^etcd Version/ { print $3 }') at $(command -v etcd)"
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
  local minor=${version#v1.}
  minor=${minor%%.*}
  local ldflags="-s -w"
  local pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  local name started
  for name in "$@"; do
    started=$SECONDS
    say "building $name $version from Go modules into $bin_dir"
    say "  (${estimate[$name]} on 2 cores, plus module downloads; later runs reuse the cache)"
    (cd "$here/kube" && CGO_ENABLED=0 go build -v -trimpath -ldflags "$ldflags" \
      -o "$staging/$name" "k8s.io/kubernetes/cmd/$name" 2>&1 | go_build_progress "$name" 200)
    [[ -x "$staging/$name" ]] || fail "go build did not produce $name"
    # Moved into place only once built, so an interrupted build never leaves a half toolchain behind.
    mkdir -p "$bin_dir"
    mv "$staging/$name" "$bin_dir/"
    say "built $name in $((SECONDS - started))s"
  done
}

ensure_etcd
missing=()
for name in kube-apiserver kube-controller-manager; do
  if [[ ! -x "$bin_dir/$name" ]] || ! "$bin_dir/$name" --version 2>/dev/null | grep -qx "Kubernetes $version"; then
    missing+=("$name")
  fi
done
if ((${#missing[@]} > 0)); then build "${missing[@]}"; fi
say "kube-apiserver and kube-controller-manager $version at $bin_dir"
if [[ "${1:-}" == "--print-bin-dir" ]]; then echo "$bin_dir"; fi
