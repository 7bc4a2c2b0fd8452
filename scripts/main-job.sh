#!/usr/bin/env bash
# The main job: builds ipisim (Release) and runs every seed experiment with the default
# machines. Usage: scripts/main-job.sh [BUILD_DIR [reproduce flags...]]; the flags default to
# `--out results`.
# A successful build is quiet; a failed one prints its log (the compiler's errors) on stderr and
# exits 1. IPISIM_BUILD (default scripts/build.sh) is the build command, for tests.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift $(( $# > 0 ? 1 : 0 ))
build=${IPISIM_BUILD:-scripts/build.sh}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! $build "$dir" Release >"$log" 2>&1; then
    cat "$log" >&2
    echo "main-job: the build failed (its output is above)" >&2
    exit 1
fi
if "$dir/ipisim" reproduce --help >/dev/null 2>&1; then
    if [ $# -eq 0 ]; then set -- --out results; fi
    "$dir/ipisim" reproduce "$@"
else
    "$dir/ipisim" run experiments/demo_ipi_ping.toml --out results/demo_ipi_ping
fi
