#!/usr/bin/env bash
# The GitOps flow on your machine, against the go-pve-qemu simulator:
#
#   npm run sim -- --port 8787 --speed 50 --state .sim-state/gitops.json    # terminal 1
#   bash examples/gitops/try-local.sh                                      # terminal 2
#
# runs pipeline.sh as CI would: `preview` (what a pull request gets as a
# comment), then `up` (what merging does). Edit Pulumi.prod.yaml and run it
# again to see a change go through; `try-local.sh destroy` tears it all down.
# The program runs from a copy (.e2e-work/gitops-local) whose endpoint points
# at the simulator, so Pulumi.prod.yaml is never changed; the state stays in
# .pulumi-state/gitops-local (a file backend standing in for the bucket).
#
#   try-local.sh [flow|preview|up|destroy]    default: flow (preview, then up)
#   GO_PVE_QEMU_ENDPOINT                      default http://127.0.0.1:8787
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
action=${1:-flow}
endpoint=${GO_PVE_QEMU_ENDPOINT:-http://127.0.0.1:8787}
state=${GITOPS_LOCAL_STATE:-$root/.pulumi-state/gitops-local}
work=${GITOPS_LOCAL_WORK:-$root/.e2e-work/gitops-local}

export PATH="$root/node_modules/.bin:$PATH"
[ -f "$root/dist/provider/index.js" ] || (cd "$root" && tsc -p tsconfig.build.json)
PATH="$(bash "$root/scripts/ensure-engine.sh"):$PATH"
export PULUMI_HOME="$state/home" PULUMI_BACKEND_URL="file://$state/backend"
export PULUMI_CONFIG_PASSPHRASE=${PULUMI_CONFIG_PASSPHRASE:-gitops-local}
export PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true PULUMI_SKIP_CONFIRMATIONS=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true PULUMI_NODEJS_TRANSPILE_ONLY=true
mkdir -p "$state/backend" "$work"

# A fresh "checkout" of the program. The salt of a real passphrase (if one was
# committed) is dropped: the local stack has its own passphrase.
cp "$here/Pulumi.yaml" "$here/index.ts" "$work/"
grep -v '^encryptionsalt:' "$here/Pulumi.prod.yaml" >"$work/Pulumi.prod.yaml"
(cd "$work" && pulumi stack select --create prod --non-interactive &&
  pulumi config set goPveQemu:endpoint "$endpoint" --non-interactive)
echo "try-local: Pulumi.prod.yaml with goPveQemu:endpoint=$endpoint, state in $state"

pipeline() { PROGRAM_DIR="$work" PREVIEW_FILE="$state/preview.txt" bash "$here/pipeline.sh" "$@"; }
case "$action" in
  flow)
    echo "== pull request: pulumi preview (CI posts this as a comment)"
    pipeline preview
    echo "== merged to main: pulumi up"
    pipeline up
    ;;
  preview | up) pipeline "$action" ;;
  destroy) (cd "$work" && pulumi destroy --yes --non-interactive) ;;
  *)
    echo "try-local: unknown action \"$action\": use flow, preview, up or destroy" >&2
    exit 2
    ;;
esac
