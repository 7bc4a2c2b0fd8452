#!/usr/bin/env bash
# Records the golden fingerprints (tests/golden/*.expected) from BUILD_DIR's ipisim, after an
# intended behaviour change. Usage: scripts/update-goldens.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
cmake -DIPISIM="$PWD/$dir/ipisim" -DSRC="$PWD" -DWORK="$PWD/$dir/golden_update" -DUPDATE=1 -P tests/cli/golden.cmake
git --no-pager diff --stat -- tests/golden
