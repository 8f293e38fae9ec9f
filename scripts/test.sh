#!/usr/bin/env bash
# npm test: set-up (scripts/setup.sh: dependencies, Node.js 22, build,
# engine), type check, lint, then every test tier. Extra arguments go to jest,
# e.g. `npm test -- test/client`.
#
# The tiers (test/tiers.js says which file is in which; a file in none fails):
#   npm run test:unit          in this process only (an in-process simulator at
#                              most): no engine, no toolchain; under 2 minutes
#   npm run test:integration   the simulator and local servers, command lines in
#                              processes of their own; no engine
#   npm run test:e2e           through the Pulumi engine (test/e2e,
#                              test/examples, test/upgrade, the demo)
#   npm run test:consumers     other languages' toolchains, PostgreSQL, the
#                              packed package in a project of its own
# A tier runs its tests only (no type check, no lint), after the set-up it
# needs: unit and integration build no engine. `npm run test:unit -- test/client`
# narrows a tier the same way.
set -euo pipefail

tier=""
if [ "${1:-}" = "--tier" ]; then
  tier=${2:?"--tier needs a name: unit, integration, e2e or consumers"}
  shift 2
  case $tier in
    unit | integration) export GO_PVE_QEMU_SETUP_ENGINE=0 ;;
    e2e | consumers) ;;
    *)
      echo "scripts/test.sh: no tier $tier (unit, integration, e2e, consumers)" >&2
      exit 2
      ;;
  esac
fi

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

if [ -n "$tier" ]; then
  workers=()
  # The unit tests mostly wait (timers, simulated time) rather than compute:
  # two workers halve the tier's time even on a 2-core machine, where jest
  # would run one. A worker count given to jest wins.
  if [ "$tier" = unit ] && ! [[ " $* " =~ \ (-w|-i|--maxWorkers|--runInBand)[=\ ] ]]; then workers=(--maxWorkers=2); fi
  echo "== tests: $tier"
  # --selectProjects last: it takes every word after it as a project name.
  exec jest --ci "${workers[@]}" "$@" --selectProjects "$tier"
fi
echo "== type check"
tsc -p tsconfig.json --noEmit
echo "== lint"
npm run -s lint
echo "== tests"
exec jest --ci "$@"
