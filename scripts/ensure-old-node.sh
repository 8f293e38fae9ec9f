#!/usr/bin/env bash
# Makes a pinned Node.js older than the package accepts (it needs 22.19 or
# later) available and prints the folder holding its `node`. The tests of the
# package's refusal run on it, so that refusal is asserted on every machine,
# whatever Node.js the machine itself runs.
#
#   bash scripts/ensure-old-node.sh
#
# It is npm's `node` package at this exact version, installed with npm from
# the npm registry once into the cache beside the engine
# (GO_PVE_QEMU_ENGINE_CACHE, default ~/.cache/go-pve-qemu-pulumi); a second
# run answers at once. Progress goes to stderr, the folder to stdout.
set -euo pipefail

# The one place the old Node.js's version is pinned. Node.js 20: the version
# on which undici 8 fails deep inside without the package's own check.
OLD_NODE_VERSION=20.20.2

cache=${GO_PVE_QEMU_ENGINE_CACHE:-${HOME:-/tmp}/.cache/go-pve-qemu-pulumi}
dir="$cache/node-$OLD_NODE_VERSION"
bin="$dir/node_modules/.bin"
say() { echo "old Node.js: $*" >&2; }

if [ ! -x "$bin/node" ]; then
  mkdir -p "$cache"
  # One install at a time: test files running in parallel wait, then find it.
  if command -v flock >/dev/null; then
    exec 9>"$cache/.old-node.lock"
    flock 9
  fi
  if [ ! -x "$bin/node" ]; then
    say "installing node@$OLD_NODE_VERSION from the npm registry into $dir"
    tmp="$dir.partial.$$"
    trap 'rm -rf "$tmp"' EXIT
    rm -rf "$tmp" && mkdir -p "$tmp"
    printf '{ "private": true, "dependencies": { "node": "%s" }, "allowScripts": { "node": true } }\n' \
      "$OLD_NODE_VERSION" >"$tmp/package.json"
    (cd "$tmp" && npm install --no-audit --no-fund --no-package-lock --loglevel=error) >&2
    found=$("$tmp/node_modules/.bin/node" -p process.versions.node)
    if [ "$found" != "$OLD_NODE_VERSION" ]; then
      say "npm installed Node.js $found, not $OLD_NODE_VERSION"
      exit 1
    fi
    rm -rf "$dir" && mv "$tmp" "$dir"
  fi
fi
echo "$bin"
