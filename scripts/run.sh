#!/usr/bin/env bash
# Runs one of the project's compiled entry points after the set-up
# (scripts/setup.sh), on Node.js 22:
#   bash scripts/run.sh dist/scripts/demo.js --speed 50
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
exec node "$@"
