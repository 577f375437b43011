#!/usr/bin/env bash
# Packs this checkout of gateway-conformance and installs the tarball into FOLDER with the dependency tree its
# package-lock.json pins (scripts/install-packed.mjs): the command the Action runs is the package users install.
# The pack self-test (test/cli/pack.test.ts) runs this script, with --offline.
# Usage: action/install.sh FOLDER [npm ci flags]
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:?usage: action/install.sh FOLDER [npm ci flags]}"
shift
mkdir -p "$dest.pack"
# npm pack compiles the command (prepack), which needs the build's dependencies.
if [ ! -d "$src/node_modules" ]; then
  (cd "$src" && npm ci --no-audit --no-fund "$@")
fi
tarball="$(cd "$src" && npm pack --silent --pack-destination "$dest.pack" "$@" | tail -n 1)"
node "$src/scripts/install-packed.mjs" "$dest.pack/$tarball" "$dest" "$@"
echo "bin=$dest/node_modules/.bin/gateway-conformance" >> "${GITHUB_OUTPUT:-/dev/null}"
