#!/bin/sh
# Builds every pty command into PREFIX/bin (default ~/.local/bin).
# Idempotent: running it again replaces the binaries in place.
set -eu
prefix=${1:-"$HOME/.local"}
bindir="$prefix/bin"
here=$(cd "$(dirname "$0")/.." && pwd)
command -v go >/dev/null 2>&1 || { echo "install.sh: go is not on PATH; install Go from https://go.dev/dl and retry" >&2; exit 1; }
mkdir -p "$bindir"
cd "$here"
# Build into a scratch directory first, then move into place, so a failed
# build never leaves a mix of old and new binaries.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# build.sh says how (no cgo; the daemon without Green Tea). -s -w drops
# the symbol tables, which are never loaded at run time anyway.
sh install/build.sh "$tmp" -trimpath -ldflags='-s -w'
# Copied rather than moved: the linker writes its output through a memory
# mapping, and until the page cache drops them those pages make every start
# of the program slower (more, smaller pieces for each page fault to map)
# than the pages of a file written with write(2), which cp makes. Each copy
# is renamed into place, so a running program keeps its old file.
n=0
for f in "$tmp"/*; do
  name=$(basename "$f")
  cp "$f" "$bindir/.$name.new"
  mv -f "$bindir/.$name.new" "$bindir/$name"
  n=$((n + 1))
done
echo "Installed $n commands into $bindir"
case ":$PATH:" in
  *":$bindir:"*) ;;
  *) echo "Add $bindir to your PATH, for example:  echo 'export PATH=\"$bindir:\$PATH\"' >> ~/.profile" ;;
esac
