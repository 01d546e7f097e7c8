#!/usr/bin/env bash
# The tests that skipped themselves (no GPU, no Slurm, no actionlint, no Chromium), and
# why: each wrote one line under target/tmp/skipped/ (tests/support/skip.rs). cargo counts
# a skipped test as passed, so the test command ends with this list.
#
#   tests/skipped.sh --clear   forget the skips of earlier runs (before the tests)
#   tests/skipped.sh           print the list (after the tests)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${CARGO_TARGET_DIR:-$repo/target}/tmp/skipped"
if [[ "${1:-}" == "--clear" ]]; then
  rm -rf "$dir"
  exit 0
fi
shopt -s nullglob
files=("$dir"/*)
if [[ ${#files[@]} -eq 0 ]]; then
  echo "skipped tests: none"
  exit 0
fi
echo "skipped tests: ${#files[@]} (counted as passed above; each did not run, for the reason given)"
cat "${files[@]}" | sort | sed 's/^/  /'
