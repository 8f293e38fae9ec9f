#!/usr/bin/env bash
# Makes the Pulumi engine available and prints the folder that holds it.
#
#   bash scripts/ensure-engine.sh            progress on stderr, the bin folder on stdout
#
# The folder holds `pulumi`, `pulumi-language-nodejs` and
# `pulumi-resource-pulumi-nodejs`; put it first on PATH. An installed `pulumi`
# (3.x, with its own Node.js language host beside it) is used when there is
# one, unless GO_PVE_QEMU_BUILD_ENGINE=1. Otherwise the CLI is built from
# Pulumi's published Go module at the pinned version (engine/versions.env) and
# the language host from engine/language-host, into a cache outside the work
# tree (GO_PVE_QEMU_ENGINE_CACHE, default ~/.cache/go-pve-qemu-pulumi). A
# second run finds the cache and returns at once.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../engine/versions.env
source "$root/engine/versions.env"
say() { echo "engine: $*" >&2; }

write_dynamic_provider_launcher() {
  # The dynamic provider ships inside @pulumi/pulumi; this launcher runs it
  # with the project's Node.js (node_modules/.bin/node, from the npm `node`
  # package), found from the program's folder upward.
  cat >"$1/pulumi-resource-pulumi-nodejs" <<'SH'
#!/bin/sh
dir=$(pwd)
while [ "$dir" != "/" ]; do
  if [ -f "$dir/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js" ]; then
    node="$dir/node_modules/.bin/node"
    [ -x "$node" ] || node=node
    exec "$node" "$dir/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js" "$@"
  fi
  dir=$(dirname "$dir")
done
echo "pulumi-resource-pulumi-nodejs: no node_modules/@pulumi/pulumi above $(pwd); run npm ci" >&2
exit 1
SH
  chmod +x "$1/pulumi-resource-pulumi-nodejs"
}

# 1. An installed engine, when there is one.
if [ "${GO_PVE_QEMU_BUILD_ENGINE:-0}" != 1 ] && installed=$(command -v pulumi 2>/dev/null); then
  installed_dir=$(dirname "$(readlink -f "$installed")")
  version=$("$installed" version 2>/dev/null || true)
  if [[ "$version" =~ ^v3\.([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 150 ] &&
    [ -x "$installed_dir/pulumi-language-nodejs" ]; then
    say "using installed pulumi $version at $installed_dir"
    echo "$installed_dir"
    exit 0
  fi
fi

# 2. The cache, keyed by the pinned version and the sources it is built from.
key=$(cat "$root/engine/versions.env" "$root"/engine/cli/go.* "$root"/engine/language-host/go.* \
  "$root"/engine/language-host/*.go "$0" | sha256sum | cut -c1-12)
cache=${GO_PVE_QEMU_ENGINE_CACHE:-${HOME:-/tmp}/.cache/go-pve-qemu-pulumi}
bin="$cache/pulumi-$PULUMI_VERSION-$key/bin"
cached() { [ -x "$bin/pulumi" ] && [ -x "$bin/pulumi-language-nodejs" ] && [ -x "$bin/pulumi-resource-pulumi-nodejs" ]; }
if cached; then
  say "cached pulumi $PULUMI_VERSION at $bin"
  echo "$bin"
  exit 0
fi

# One build at a time: a second caller waits, then finds the cache.
mkdir -p "$cache"
if command -v flock >/dev/null; then
  exec 9>"$cache/.build.lock"
  flock 9
  if cached; then
    say "cached pulumi $PULUMI_VERSION at $bin (built meanwhile)"
    echo "$bin"
    exit 0
  fi
fi

# 3. Build.
command -v go >/dev/null || { say "no installed pulumi and no Go toolchain to build one"; exit 1; }
tmp="$bin.partial.$$"
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
export GOFLAGS=-mod=mod GOTOOLCHAIN=local
ldflags="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION"

start=$SECONDS
say "building pulumi $PULUMI_VERSION from its Go module (first time only: downloads modules, then compiles for a few minutes)"
log="$tmp/build.log"
(
  cd "$root/engine/cli"
  go mod download -x >"$log" 2>&1
  say "  modules ready ($(grep -c '^# get' "$log" || true) fetched), compiling"
  go build -trimpath -ldflags "$ldflags" -o "$tmp/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >>"$log" 2>&1
) &
build=$!
ticks=0
while kill -0 "$build" 2>/dev/null; do
  sleep 2
  ticks=$((ticks + 1))
  if [ $((ticks % 15)) -eq 0 ] && kill -0 "$build" 2>/dev/null; then say "  still building pulumi ($((SECONDS - start))s)"; fi
done
if ! wait "$build"; then
  say "building pulumi failed; the last lines of its log:"
  tail -n 30 "$log" >&2
  exit 1
fi
say "built pulumi in $((SECONDS - start))s"

say "building pulumi-language-nodejs (engine/language-host)"
(cd "$root/engine/language-host" && go build -trimpath -ldflags "-s -w -X main.version=${PULUMI_VERSION#v}" -o "$tmp/pulumi-language-nodejs" .)
write_dynamic_provider_launcher "$tmp"

mkdir -p "$(dirname "$bin")"
rm -rf "$bin" && mv "$tmp" "$bin"
trap - EXIT
say "ready: $("$bin/pulumi" version) at $bin ($((SECONDS - start))s)"
echo "$bin"
