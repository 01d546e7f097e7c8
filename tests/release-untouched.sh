#!/usr/bin/env bash
# Whether the test command left target/release/glossary alone: the binary the README puts
# on PATH. tests/run.sh stamps it before the tests and checks the stamp after; a rebuild
# (a new inode, size or modification time) or a binary that appeared or vanished fails the
# run, naming the file.
#
#   tests/release-untouched.sh stamp           print the binary's stamp
#   tests/release-untouched.sh check STAMP     exit 1 if the binary's stamp is not STAMP
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CARGO_TARGET_DIR:-$repo/target}/release/glossary"
stamp() {
  if [[ -e "$bin" ]]; then stat -c '%i %s %.9Y' "$bin"; else echo absent; fi
}
case "${1:-}" in
  stamp) stamp ;;
  check)
    now="$(stamp)"
    if [[ "$now" != "${2:-}" ]]; then
      echo "error: the test command changed $bin (before: ${2:-}; after: $now): it is the binary the README puts on PATH, and the tests must build into target/browser/ or target/debug/ instead" >&2
      exit 1
    fi ;;
  *) echo "usage: $0 stamp | check STAMP" >&2; exit 2 ;;
esac
