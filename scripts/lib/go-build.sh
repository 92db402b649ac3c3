# Sourced by the toolchain scripts (after they define `fail`).
#
# go_build_staging <cache_root> <prefix> <what>: puts the machine's Go on PATH if none is there, and makes the
# global `staging` directory under <cache_root>, removed on exit (a build is moved into place only once done).
go_build_staging() {
  if ! command -v go >/dev/null 2>&1; then
    [[ -x /usr/local/go/bin/go ]] || fail "Go 1.25 or newer is required to build $3 (no prebuilt binary can be downloaded here)"
    export PATH="/usr/local/go/bin:$PATH"
  fi
  mkdir -p "$1"
  # Global, so the EXIT trap still sees it after the caller returns.
  staging=$(mktemp -d "$1/$2.XXXXXX")
  trap 'rm -rf "$staging"' EXIT
}

# go_build_progress reads `go build -v` output (it names each package as it compiles it) and
# prints on stderr one progress line every `every` packages, and the lines that say what went wrong.
#
#   go build -v ... 2>&1 | go_build_progress <what> <every>
go_build_progress() {
  awk -v what="$1" -v every="$2" '
    { n++; if (n % every == 0) printf "[toolchain]   %s: %d packages compiled\n", what, n > "/dev/stderr" }
    /^(go: |#|.*\.go:[0-9]+)/ { print > "/dev/stderr" }'
}
