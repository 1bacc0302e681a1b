#!/bin/sh
# Builds every pty command into DIR, as install.sh and `make build` do:
#   sh install/build.sh DIR [go build flags...]
# without cgo (a static binary spares every session daemon the pages of
# libc and ld.so), and pty-daemon once more without Go's Green Tea
# collector where the toolchain still offers it: internal/daemonbuild
# says why, and the tests and benchmarks build it the same way.
set -eu
[ $# -ge 1 ] || { echo "usage: sh install/build.sh DIR [go build flags...]" >&2; exit 1; }
dir=$1
shift
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
cd "$(dirname "$0")/.."
export CGO_ENABLED=0
go build "$@" -o "$dir/" ./cmd/...
experiment="${GOEXPERIMENT:+$GOEXPERIMENT,}nogreenteagc"
if GOEXPERIMENT=$experiment go env GOEXPERIMENT >/dev/null 2>&1; then
  GOEXPERIMENT=$experiment go build "$@" -o "$dir/" ./cmd/pty-daemon
fi
