#!/usr/bin/env bash
# Fails when a tracked C++ file differs from clang-format --style=file (.clang-format).
# Usage: scripts/check-format.sh            (check)
#        scripts/check-format.sh --fix      (reformat in place)
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run -Werror "${files[@]}" 2>/tmp/ipisim-format.$$; then
  grep -E '^[^ ].*: (error|warning):' /tmp/ipisim-format.$$ | sed -E 's/:[0-9]+:[0-9]+:.*//' | sort -u |
    sed 's/^/misformatted: /'
  rm -f /tmp/ipisim-format.$$
  echo "check-format: run scripts/check-format.sh --fix" >&2
  exit 1
fi
rm -f /tmp/ipisim-format.$$
echo "check-format: ${#files[@]} files formatted"
