#!/usr/bin/env bash
# npm test: set-up (scripts/setup.sh: dependencies, Node.js 22, build,
# engine), type check, lint, then every test (unit, integration against the
# simulator, end to end through the engine, the packed package in a project
# of its own). Extra arguments go to jest, e.g. `npm test -- test/client`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

echo "== type check"
tsc -p tsconfig.json --noEmit
echo "== lint"
npm run -s lint
echo "== tests"
exec jest --ci "$@"
