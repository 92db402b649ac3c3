#!/usr/bin/env bash
# `bash scripts/with-pulumi.sh <command> [args...]`: runs a command with the environment `npm run pulumi` gives
# the CLI (the pinned pulumi, Node and plugins first on PATH, offline, the repository's file:// backend and its
# default passphrase unless you configured your own), for programs that drive the CLI themselves, such as
# Automation API programs: `bash scripts/with-pulumi.sh npx ts-node examples/programmatic/index.ts`.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$repo/scripts/pulumi-env.sh"
exec "$@"
