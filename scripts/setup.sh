#!/usr/bin/env bash
# The set-up every entry point needs, done only when it is missing or stale,
# so that `npm run demo` and `npm test` work alone on a fresh clone:
#   1. dependencies: `npm ci` when node_modules is missing or older than
#      package-lock.json (it brings Node.js 22: the npm `node` package);
#   2. Node.js 22 first on PATH, whatever Node.js runs npm itself;
#   3. the build (dist/, incremental);
#   4. the Pulumi engine (scripts/ensure-engine.sh), exported as
#      GO_PVE_QEMU_ENGINE_BIN (skipped with GO_PVE_QEMU_SETUP_ENGINE=0).
# Sourced by the other scripts: `source scripts/setup.sh`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

setup_say() { echo "setup: $*" >&2; }

# Done already in this process tree (npm test runs `npm run demo` in a test):
# installing again would replace node_modules under the running tests.
if [ "${GO_PVE_QEMU_SETUP_DONE:-}" = "$root" ]; then
  export PATH="$root/node_modules/.bin:$PATH"
  return 0 2>/dev/null || exit 0
fi

# npm writes node_modules/.package-lock.json on every install: older than the
# lock file means the lock changed since (a pull, a branch switch).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  setup_say "installing dependencies (npm ci)"
  # Errors only: on a machine whose own Node.js is older than 22, npm warns
  # about every package that needs 22 (this one included), which the `node`
  # package it installs here provides.
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

export PATH="$root/node_modules/.bin:$PATH"
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 22 ]; then
  setup_say "node_modules/.bin/node is Node.js $(node --version), not 22; run: rm -rf node_modules && npm ci"
  exit 1
fi

setup_say "building dist/"
tsc -p tsconfig.build.json

# The simulator alone needs no engine (GO_PVE_QEMU_SETUP_ENGINE=0).
if [ "${GO_PVE_QEMU_SETUP_ENGINE:-1}" != 0 ]; then
  GO_PVE_QEMU_ENGINE_BIN=${GO_PVE_QEMU_ENGINE_BIN:-$(bash scripts/ensure-engine.sh)}
  export GO_PVE_QEMU_ENGINE_BIN
  export GO_PVE_QEMU_SETUP_DONE="$root"
fi
