#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy) on the C++ sources changed since a base commit and fails on any
# warning. Usage: scripts/tidy.sh [BUILD_DIR] [BASE]
#   BUILD_DIR  a configured build with compile_commands.json (default: build)
#   BASE       the commit to diff against (default: HEAD's first parent, so on main it checks the
#              files the last landing changed: for a merge, the whole merged branch)
# Only src/ (tests and benchmarks are not checked; headers only where a check reports through
# a changed source): at ~10 s of CPU per file this keeps the CI step to a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
base=${2:-HEAD^1}
if [ ! -f "$dir/compile_commands.json" ]; then
  echo "tidy: $dir/compile_commands.json missing: configure the build first (scripts/build.sh $dir)" >&2
  exit 2
fi
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  echo "tidy: no base commit '$base' (a shallow clone?): nothing to compare against, skipped"
  exit 0
fi
mapfile -t files < <(git diff --name-only --diff-filter=d "$base" HEAD -- 'src/*.cpp')
if [ "${#files[@]}" -eq 0 ]; then
  echo "tidy: no C++ source changed since $(git rev-parse --short "$base")"
  exit 0
fi
echo "tidy: ${#files[@]} changed source(s) since $(git rev-parse --short "$base")"
# The build's precompiled headers are GCC's (.gch), which clang cannot read ("not a valid
# precompiled PCH file"): clang-tidy gets the compile commands without them, so each file is
# also checked to include what it uses.
db=$(mktemp -d)
trap 'rm -rf "$db"' EXIT
sed -E 's# -Winvalid-pch -include [^ ]*/cmake_pch\.hxx##g' "$dir/compile_commands.json" >"$db/compile_commands.json"
# One clang-tidy per file, two at a time: the output of each file stays together.
printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -I{} sh -c 'clang-tidy -p "$0" --quiet --warnings-as-errors="*" "$2" 2>/dev/null >"$1/tidy.$(echo "$2" | tr / _).log" || { cat "$1/tidy.$(echo "$2" | tr / _).log"; exit 1; }' "$db" "$dir" {} ||
  { echo "tidy: clang-tidy found problems (above)" >&2; exit 1; }
echo "tidy: clean"
