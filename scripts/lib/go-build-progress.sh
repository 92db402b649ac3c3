# Sourced by the toolchain scripts. Reads `go build -v` output (it names each package as it compiles it) and
# prints on stderr one progress line every `every` packages, and the lines that say what went wrong.
#
#   go build -v ... 2>&1 | go_build_progress <what> <every>
go_build_progress() {
  awk -v what="$1" -v every="$2" '
    { n++; if (n % every == 0) printf "[toolchain]   %s: %d packages compiled\n", what, n > "/dev/stderr" }
    /^(go: |#|.*\.go:[0-9]+)/ { print > "/dev/stderr" }'
}
