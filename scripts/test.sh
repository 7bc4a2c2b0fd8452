#!/usr/bin/env bash
# Builds ipisim and runs every test. Usage: scripts/test.sh [BUILD_DIR] [BUILD_TYPE] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
scripts/build.sh "$@"
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)"
