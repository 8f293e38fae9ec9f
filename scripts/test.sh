#!/usr/bin/env bash
# npm test: type check, lint, make sure the Pulumi engine is there, then every
# test (unit, integration against the simulator, end to end through the engine).
# Extra arguments go to jest, e.g. `npm test -- test/client`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# Node.js 22 from the npm `node` package, whatever the machine has.
export PATH="$root/node_modules/.bin:$PATH"

echo "== build and type check"
tsc -p tsconfig.build.json
tsc -p tsconfig.json --noEmit
echo "== lint"
npm run -s lint
echo "== engine"
GO_PVE_QEMU_ENGINE_BIN=$(bash scripts/ensure-engine.sh)
export GO_PVE_QEMU_ENGINE_BIN
echo "== tests"
exec jest --ci "$@"
