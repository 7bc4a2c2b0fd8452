#!/usr/bin/env bash
# The main job: builds ipisim (Release) and runs every seed experiment with the default
# machines. Usage: scripts/main-job.sh [BUILD_DIR] — results go to results/.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
scripts/build.sh "$dir" Release >/dev/null
if "$dir/ipisim" reproduce --help >/dev/null 2>&1; then
    exec "$dir/ipisim" reproduce --out results
else
    exec "$dir/ipisim" run experiments/demo_ipi_ping.toml --out results/demo_ipi_ping
fi
