#!/usr/bin/env bash
# Installs what the project needs beyond `npm ci`, idempotently and with progress: checks that npm installed the
# pinned Node, installs Debian's OCI registry for the tests and the demo and its Prometheus for the metrics test, builds the pinned Pulumi CLI, and
# makes a real Kubernetes API server available (kube-apiserver built from Go modules at the reference release
# and the oldest supported one, etcd from Go modules, Debian's haproxy for the HA environment).
# `--without-kube` leaves kube-apiserver out, for commands that never start it (the demo, the plugin install):
# its cold build is most of a fresh machine's set-up.
set -euo pipefail
with_kube=true
[[ "${1:-}" == "--without-kube" ]] && with_kube=false
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

node_bin="$repo/node_modules/.bin/node"
pinned=$(node -p "require('$repo/package.json').devDependencies.node")
if [[ ! -x "$node_bin" ]] || [[ "$("$node_bin" --version)" != "v$pinned" ]]; then
  echo "[setup] error: node_modules/.bin/node is not Node v$pinned. npm skipped the install script of the 'node'" >&2
  echo "[setup] package: keep \"allowScripts\": { \"node\": true } in package.json and run 'npm ci' again." >&2
  exit 1
fi
echo "[setup] Node $("$node_bin" --version) from node_modules (pinned)" >&2

bash "$repo/scripts/setup-registry.sh"
bash "$repo/scripts/setup-prometheus.sh"
bash "$repo/scripts/toolchain/build.sh"
echo "[setup] Pulumi CLI $("$(bash "$repo/scripts/toolchain/build.sh" --print-bin-dir)/pulumi" version) ready" >&2
echo "[setup] Pulumi YAML ready in $(bash "$repo/scripts/toolchain/yaml.sh")" >&2
# The oldest CLI the package supports (the floor of its @pulumi/pulumi range), for the tests' smoke stack on it.
oldest=$(node -p "require('$repo/package.json').dependencies['@pulumi/pulumi'].replace(/^\\^/, '')")
echo "[setup] Pulumi CLI $("$(bash "$repo/scripts/toolchain/build.sh" --version "$oldest" --print-bin-dir)/pulumi" version) ready (the oldest supported)" >&2
if $with_kube; then
  bash "$repo/scripts/toolchain/kube.sh"
  # The oldest supported minor, for the smaller job vitest.config.mts runs on it (kube-1.35).
  EXAMPLEDEV_KUBE_VERSION=1.35 bash "$repo/scripts/toolchain/kube.sh"
else
  echo "[setup] kube-apiserver not needed by this command: skipped" >&2
fi
