#!/usr/bin/env bash
# Makes the toolchains of the non-Node.js consumers (test/consumers/) available
# and prints where each one is.
#
#   bash scripts/ensure-consumers.sh yaml     the folder holding pulumi-language-yaml
#   bash scripts/ensure-consumers.sh python   a Python interpreter whose venv has the pulumi SDK
#   bash scripts/ensure-consumers.sh python-sdk   a folder for PYTHONPATH holding the generated SDK (sdk/python)
#   bash scripts/ensure-consumers.sh go       the built Go consumer (test/consumers/go)
#
# Progress goes to stderr, the path to stdout. Each piece is built once into a
# cache outside the work tree (GO_PVE_QEMU_ENGINE_CACHE, default
# ~/.cache/go-pve-qemu-pulumi, beside the engine), keyed by its pinned version
# and the sources it is built from, one build at a time; a second run answers
# at once. Versions are pinned in test/consumers/versions.env.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../test/consumers/versions.env
source "$root/test/consumers/versions.env"
cache=${GO_PVE_QEMU_ENGINE_CACHE:-${HOME:-/tmp}/.cache/go-pve-qemu-pulumi}
part=${1:-}
say() { echo "consumers ($part): $*" >&2; }
# What a build leaves half-made when it fails: removed on exit.
partial=()
trap 'rm -rf "${partial[@]}"' EXIT

# Runs "$@" with progress every 30 s; on failure shows the end of its log.
build_step() {
  local what=$1 log=$2
  shift 2
  local start=$SECONDS ticks=0
  "$@" >>"$log" 2>&1 &
  local job=$!
  while kill -0 "$job" 2>/dev/null; do
    sleep 2
    ticks=$((ticks + 1))
    if [ $((ticks % 15)) -eq 0 ] && kill -0 "$job" 2>/dev/null; then say "  still $what ($((SECONDS - start))s)"; fi
  done
  if ! wait "$job"; then
    say "$what failed; the last lines of its log:"
    tail -n 30 "$log" >&2
    return 1
  fi
}

# One build at a time per piece: a second caller waits, then finds the cache.
# Each piece has a lock file of its own and a descriptor of its own, so that
# one piece may build another (python-sdk the venv) while holding its lock.
lock() {
  mkdir -p "$cache"
  if command -v flock >/dev/null; then
    local fd
    exec {fd}>"$cache/.consumers-$1.lock"
    flock "$fd"
  fi
}

# Builds keyed by a checkout's sources (the Go consumer, the Python SDK) pile
# up as those sources change: each use marks its own, and those no checkout
# used for a week go.
prune_stale() {
  local pattern=$1 current=$2
  touch "$current"
  find "$cache" -mindepth 1 -maxdepth 1 -name "$pattern" ! -path "$current" -mtime +7 -exec rm -rf {} + 2>/dev/null || true
}

ensure_yaml() {
  # The YAML language host as its own module publishes it: its go.mod pins an
  # older Pulumi SDK than the engine's, and it does not compile against the
  # engine's (plugin.NewContextWithRoot changed), so it is not built in
  # engine/cli's module. The language host protocol is stable across the two.
  local dir="$cache/pulumi-language-yaml-$PULUMI_YAML_VERSION/bin"
  local exe="$dir/pulumi-language-yaml"
  if [ -x "$exe" ]; then
    say "cached pulumi-language-yaml $PULUMI_YAML_VERSION at $dir"
    echo "$dir"
    return
  fi
  lock yaml
  if [ ! -x "$exe" ]; then
    command -v go >/dev/null || { say "no Go toolchain to build pulumi-language-yaml"; exit 1; }
    local tmp="$dir.partial.$$" start=$SECONDS
    partial+=("$tmp")
    rm -rf "$tmp" && mkdir -p "$tmp"
    say "building pulumi-language-yaml $PULUMI_YAML_VERSION from the Go module proxy (first time only, about 2 minutes)"
    GOBIN="$tmp" GOFLAGS=-mod=mod GOTOOLCHAIN=local build_step "building pulumi-language-yaml" "$tmp/build.log" \
      go install -trimpath -ldflags "-s -w" "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$PULUMI_YAML_VERSION"
    rm -f "$tmp/build.log"
    rm -rf "$dir" && mv "$tmp" "$dir"
    say "built pulumi-language-yaml in $((SECONDS - start))s"
  fi
  echo "$dir"
}

ensure_python() {
  # A venv with the Python SDK from PyPI. The generated SDK (sdk/python) is not
  # installed into it: the cache is shared by every checkout, so each run puts
  # its own sdk/python on PYTHONPATH instead.
  command -v python3 >/dev/null || { say "no python3 to make a venv with"; exit 1; }
  local interp
  interp=$(python3 -c 'import sys; print(sys.version.split()[0], sys.executable)')
  local dir
  dir="$cache/python-pulumi-$PULUMI_PYTHON_VERSION-$(echo "$interp setuptools $PYTHON_SETUPTOOLS_VERSION" | sha256sum | cut -c1-12)"
  if [ -x "$dir/bin/python" ]; then
    say "cached venv with pulumi $PULUMI_PYTHON_VERSION at $dir"
    echo "$dir/bin/python"
    return
  fi
  lock python
  if [ ! -x "$dir/bin/python" ]; then
    local tmp="$dir.partial.$$" start=$SECONDS
    partial+=("$tmp" "$tmp.log")
    rm -rf "$tmp"
    say "making a venv with pulumi $PULUMI_PYTHON_VERSION from PyPI ($interp; first time only)"
    build_step "making the venv" "$tmp.log" python3 -m venv "$tmp"
    build_step "installing pulumi $PULUMI_PYTHON_VERSION" "$tmp.log" \
      "$tmp/bin/python" -m pip install --disable-pip-version-check --no-input --quiet \
      "pulumi==$PULUMI_PYTHON_VERSION" "setuptools==$PYTHON_SETUPTOOLS_VERSION"
    # Moved into place whole: only the venv's console scripts name its folder,
    # and nothing here runs them (bin/python and `python -m` do not).
    rm -rf "$dir" && mv "$tmp" "$dir"
    say "made the venv in $((SECONDS - start))s"
  fi
  echo "$dir/bin/python"
}

ensure_python_sdk() {
  # The generated SDK (sdk/python) installed as pip installs it (the package
  # reads its own version from its installed metadata), into a folder of its
  # own keyed by its sources: the venv is shared by every checkout, their SDKs
  # differ. Built from a copy, since setuptools writes into the folder it builds.
  local python sdk="$root/sdk/python"
  python=$(ensure_python)
  [ -f "$sdk/pyproject.toml" ] || { say "no generated Python SDK at $sdk"; exit 1; }
  local key
  key=$( (echo "$python" && find "$sdk" -type f -not -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum |
    sed "s#$root/##") | sha256sum | cut -c1-12)
  local dir="$cache/python-sdk-$key"
  if [ -d "$dir" ]; then
    say "cached generated Python SDK at $dir"
    prune_stale 'python-sdk-*' "$dir"
    echo "$dir"
    return
  fi
  lock python-sdk
  if [ ! -d "$dir" ]; then
    local tmp="$dir.partial.$$" src="$dir.src.$$" start=$SECONDS
    partial+=("$tmp" "$src")
    say "installing the generated Python SDK (sdk/python)"
    cp -r "$sdk" "$src"
    build_step "installing sdk/python" "$src/install.log" "$python" -m pip install --disable-pip-version-check \
      --no-input --quiet --no-deps --no-build-isolation --target "$tmp" "$src"
    mv "$tmp" "$dir"
    say "installed the generated Python SDK in $((SECONDS - start))s"
  fi
  prune_stale 'python-sdk-*' "$dir"
  echo "$dir"
}

ensure_go() {
  # The Go consumer, built against the generated SDK of this checkout (a
  # replace in its go.mod), so the key covers both.
  command -v go >/dev/null || { say "no Go toolchain to build the Go consumer"; exit 1; }
  local src="$root/test/consumers/go" sdk="$root/sdk/go"
  [ -d "$sdk" ] || { say "no generated Go SDK at $sdk"; exit 1; }
  local key
  key=$( (go version && find "$src" "$sdk" -type f -print0 | sort -z | xargs -0 sha256sum | sed "s#$root/##") |
    sha256sum | cut -c1-12)
  local exe="$cache/go-consumer-$key/consumer"
  if [ -x "$exe" ]; then
    say "cached Go consumer at $exe"
    prune_stale 'go-consumer-*' "$(dirname "$exe")"
    echo "$exe"
    return
  fi
  lock go
  if [ ! -x "$exe" ]; then
    local tmp="$exe.partial.$$" start=$SECONDS log="$cache/go-consumer-build.$$.log"
    partial+=("$tmp" "$log")
    mkdir -p "$(dirname "$exe")"
    say "building the Go consumer (first time: downloads the Pulumi Go SDK's modules, then compiles for a minute or two)"
    (cd "$src" && GOFLAGS=-mod=mod GOTOOLCHAIN=local build_step "downloading modules" "$log" go mod download)
    (cd "$src" && GOFLAGS=-mod=mod GOTOOLCHAIN=local build_step "compiling" "$log" go build -trimpath -o "$tmp" .)
    mv "$tmp" "$exe"
    say "built the Go consumer in $((SECONDS - start))s"
  fi
  prune_stale 'go-consumer-*' "$(dirname "$exe")"
  echo "$exe"
}

case "$part" in
  yaml) ensure_yaml ;;
  python) ensure_python ;;
  python-sdk) ensure_python_sdk ;;
  go) ensure_go ;;
  *)
    echo "usage: bash scripts/ensure-consumers.sh yaml|python|python-sdk|go" >&2
    exit 2
    ;;
esac
