#!/usr/bin/env bash
# The Pulumi half of the GitOps workflow: what CI runs once the checkout has
# its dependencies (npm ci) and the engine (scripts/ensure-engine.sh) on PATH.
# try-local.sh runs the very same steps against the simulator.
#
#   bash examples/gitops/pipeline.sh preview    pull request: the diff, also written to $PREVIEW_FILE
#   bash examples/gitops/pipeline.sh up         main branch: apply it
#
# Environment:
#   PULUMI_BACKEND_URL        where the state lives (required), e.g. s3://bucket?endpoint=...
#   PULUMI_CONFIG_PASSPHRASE  passphrase of the stack's secrets (required)
#   GO_PVE_QEMU_TOKEN         bearer token for the server's proxy (optional)
#   STACK                     stack name (default prod: Pulumi.prod.yaml)
#   PROGRAM_DIR               the program (default: this folder)
#   PREVIEW_FILE              where preview writes its output (optional)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
action=${1:?usage: pipeline.sh preview|up}
stack=${STACK:-prod}
: "${PULUMI_BACKEND_URL:?set PULUMI_BACKEND_URL to the state backend}"
: "${PULUMI_CONFIG_PASSPHRASE:?set PULUMI_CONFIG_PASSPHRASE (a CI secret)}"
export PULUMI_SKIP_UPDATE_CHECK=true PULUMI_SKIP_CONFIRMATIONS=true PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true PULUMI_NODEJS_TRANSPILE_ONLY=true

cd "${PROGRAM_DIR:-$here}"
# The package's command line (its `bin`), found from the program the way the program finds the package.
cli=$(node -p 'require.resolve("go-pve-qemu-pulumi/package.json").replace(/package\.json$/, "dist/provider/cli/index.js")')
echo "pipeline: stack $stack of $(pwd), state in ${PULUMI_BACKEND_URL%%\?*}"
# The first run creates the stack in the backend; later runs select it.
pulumi stack select --create "$stack" --non-interactive

case "$action" in
  preview)
    out=${PREVIEW_FILE:-/dev/null}
    set +e
    pulumi preview --diff --non-interactive --color never 2>&1 | tee "$out"
    status=${PIPESTATUS[0]}
    set -e
    exit "$status"
    ;;
  up)
    # A deployment killed mid-install (a cancelled job, a lost runner) left pending creates: resolve
    # them on evidence first, so this up takes their VMs over instead of installing them again; one
    # that needs a person's word stops the job here, saying what to run.
    node "$cli" recover --stack "$stack"
    pulumi up --yes --diff --non-interactive
    node "$cli" recover --stack "$stack" --after
    pulumi stack output --non-interactive
    ;;
  *)
    echo "pipeline: unknown action \"$action\": use preview or up" >&2
    exit 2
    ;;
esac
