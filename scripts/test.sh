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

# Every process this run starts carries the run's mark in its environment
# (test/support/environment.js adds each file's own): after jest, whatever
# still carries it is named and killed, and fails the run, however jest ended.
export GO_PVE_QEMU_TEST_RUN="run-$$-$(date +%s)"
# (Under CI jest also stops after its first failed file: test/support/run-options.js.)
run_jest() {
  local rc=0
  jest --ci "$@" || rc=$?
  node test/support/processes.js sweep "GO_PVE_QEMU_TEST_RUN=$GO_PVE_QEMU_TEST_RUN" || rc=1
  return "$rc"
}

# The tests mostly wait (timers, simulated time, the engine's own pauses)
# rather than compute, and no two files share a simulator, a backend or a
# port: more workers than cores cut the time, where jest would run one on a
# 2-core machine. Four for the waiting tiers (their files last up to minutes
# each), two for the unit tier (seconds each). A worker count given to jest wins.
workers=()
if ! [[ " $* " =~ \ (-w|-i|--maxWorkers|--runInBand)[=\ ] ]]; then
  if [ "$tier" = unit ]; then workers=(--maxWorkers=2); else workers=(--maxWorkers=4); fi
fi

if [ -n "$tier" ]; then
  echo "== tests: $tier"
  # --selectProjects last: it takes every word after it as a project name.
  run_jest "${workers[@]}" "$@" --selectProjects "$tier"
  exit
fi
echo "== type check"
tsc -p tsconfig.json --noEmit
echo "== lint"
npm run -s lint
echo "== tests"
run_jest "${workers[@]}" "$@"
