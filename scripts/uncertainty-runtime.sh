#!/usr/bin/env bash
# The host time of the whole reproduction with intervals (docs/uncertainty.md, "Run time"):
# `ipisim reproduce --uncertainty N` on J threads, N = 32 and J = all CPUs by default.
# Usage: scripts/uncertainty-runtime.sh [BUILD_DIR] [N] [J] [OUT]   (OUT: results/uncertainty_runtime)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
n=${2:-32}
jobs=${3:-$(nproc)}
out=${4:-results/uncertainty_runtime}
mkdir -p "$out"
start=$(date +%s.%N)
"$dir/ipisim" reproduce --uncertainty "$n" --jobs "$jobs" --out "$out" --quiet > "$out/stdout.txt"
end=$(date +%s.%N)
echo "reproduce --uncertainty $n --jobs $jobs: $(echo "$end - $start" | bc) s host (tables in $out/stdout.txt)"
