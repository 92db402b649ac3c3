#!/usr/bin/env bash
# `npm run pulumi -- <args>`: the pinned Pulumi CLI with the pinned Node and plugins on PATH, offline,
# run in the directory npm was called from.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$repo/scripts/pulumi-env.sh"
cd "${INIT_CWD:-$PWD}"
exec pulumi "$@"
