#!/bin/sh
# Installs the original TypeScript pty (npm @myobie/pty 0.10.0) for the
# compatibility tests in this directory, into $PTY_COMPAT_DIR (default
# /tmp/pty-upstream). Idempotent: a complete install is left alone, so a
# second run costs a few milliseconds.
#
# Needs node (>= 18) and npm; when node-pty has no prebuilt addon for this
# platform (Linux), also python3, make and g++ to build it.
set -eu

VERSION=0.10.0
DIR=${PTY_COMPAT_DIR:-/tmp/pty-upstream}
PKG=$DIR/node_modules/@myobie/pty
ADDON=$DIR/node_modules/node-pty/build/Release/pty.node

installed() {
	[ -f "$PKG/dist/cli.js" ] &&
		[ "$(node -p "require('$PKG/package.json').version" 2>/dev/null)" = "$VERSION" ] &&
		{ [ -f "$ADDON" ] || [ "$(uname -s)" = Darwin ]; }
}

if installed; then
	echo "upstream pty $VERSION already installed in $DIR"
	exit 0
fi

for tool in node npm; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "install-upstream.sh: $tool is not installed; install Node.js 18 or later first" >&2
		exit 1
	}
done

mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || echo '{"name":"pty-compat","private":true}' >package.json
npm install --no-audit --no-fund --loglevel=error "@myobie/pty@$VERSION"

# npm may skip install scripts (allowScripts), leaving node-pty without its
# native addon; build it the way the reference describes.
if [ ! -f "$ADDON" ] && [ "$(uname -s)" != Darwin ]; then
	(cd node_modules/node-pty && npx --yes node-gyp rebuild --nodedir=/usr)
fi

installed || {
	echo "install-upstream.sh: the install in $DIR is incomplete (no $PKG/dist/cli.js or $ADDON)" >&2
	exit 1
}
echo "upstream pty $VERSION installed in $DIR"
