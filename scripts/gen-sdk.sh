#!/usr/bin/env bash
# Generates the gopveqemu SDKs (sdk/nodejs, sdk/python, sdk/go) from
# schema/schema.json with Pulumi's own code generators, built from its
# published Go module at the engine's version (engine/codegen) and cached
# like the engine, keyed by the sources it is built from.
#
#   bash scripts/gen-sdk.sh                    regenerate sdk/
#   bash scripts/gen-sdk.sh --out <dir>        write <dir>/nodejs, python, go instead (tests)
#   bash scripts/gen-sdk.sh --validate         only validate the schema (non-zero with its problems)
#   --schema <file>                            another schema file
#
# Run `npm run schema` first when the zod schemas changed: this reads the file.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../engine/versions.env
source "$root/engine/versions.env"
say() { echo "gen-sdk: $*" >&2; }

schema="$root/schema/schema.json"
out="$root/sdk"
validate=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --schema) schema=$2; shift 2 ;;
    --validate) validate=1; shift ;;
    *) say "unknown argument $1 (allowed --out <dir>, --schema <file>, --validate)"; exit 2 ;;
  esac
done

export GOFLAGS=-mod=mod GOTOOLCHAIN=local GOWORK=off
command -v go >/dev/null || { say "the SDKs are generated with Go, which is not on PATH"; exit 1; }

key=$(cat "$root/engine/versions.env" "$root"/engine/codegen/go.* "$root"/engine/codegen/*.go "$0" | sha256sum | cut -c1-12)
cache=${GO_PVE_QEMU_ENGINE_CACHE:-${HOME:-/tmp}/.cache/go-pve-qemu-pulumi}
bin="$cache/codegen-$PULUMI_VERSION-$key/gopveqemu-codegen"
if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  # One build at a time: a second caller waits, then finds the cache.
  exec 9>"$cache/.codegen.lock"
  command -v flock >/dev/null && flock 9
  if [ ! -x "$bin" ]; then
    start=$SECONDS
    say "building the code generator (engine/codegen, pulumi $PULUMI_VERSION)"
    mkdir -p "$(dirname "$bin")"
    (cd "$root/engine/codegen" && go build -trimpath -ldflags "-s -w" -o "$bin.partial.$$" .)
    mv "$bin.partial.$$" "$bin"
    say "built in $((SECONDS - start))s"
  fi
fi

if [ "$validate" = 1 ]; then exec "$bin" -schema "$schema" -validate; fi

"$bin" -schema "$schema" -out "$out" -pulumi-sdk "$PULUMI_VERSION" >&2
# The Go SDK builds where it stands (go build ./... in sdk/go): its go.sum, and the
# indirect requirements Go lists in go.mod, from the module cache the engine build filled.
(cd "$out/go" && go mod tidy)
say "wrote $out/{nodejs,python,go} from $schema"
