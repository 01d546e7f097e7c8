#!/usr/bin/env bash
# The release binary built with profile-guided optimization (tools/pgo-build.sh, the one
# bench/run.sh times and the Performance chapter reports) must be the same program as the
# plain `cargo build --release` one: both build this repository's site (as a drafts
# preview, so every entry has a page) and a signed 300-entry synthetic corpus, and the two
# outputs must match byte for byte. Run by .ci/run; about 15 minutes of 2 cores (two
# whole-program LTO builds and the training runs).
set -euo pipefail
cd "$(dirname "$0")/../.."

TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --locked --bins --features corpus
tools/pgo-build.sh
PLAIN="$TARGET/release/glossary"
PGO="$TARGET/pgo/glossary"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$PLAIN" build --root . --drafts --out "$WORK/own-plain" > /dev/null
"$PGO" build --root . --drafts --out "$WORK/own-pgo" > /dev/null
"$TARGET/release/glossary-corpus" write --n 300 --glossary "$WORK/corpus" --templates templates > /dev/null
"$PLAIN" build --root "$WORK/corpus" --out "$WORK/corpus-plain" > /dev/null
"$PGO" build --root "$WORK/corpus" --out "$WORK/corpus-pgo" > /dev/null

status=0
for site in own corpus; do
  files=$(find "$WORK/$site-plain" -type f | wc -l)
  if diff -r "$WORK/$site-plain" "$WORK/$site-pgo" > "$WORK/diff.txt"; then
    echo "pgo: $site: the PGO binary's $files files match the plain build's byte for byte"
  else
    echo "pgo: $site: the PGO binary's site differs from the plain build's:" >&2
    head -n 40 "$WORK/diff.txt" >&2
    status=1
  fi
  [ "$files" -gt 10 ] || { echo "pgo: $site: only $files files built" >&2; status=1; }
done
exit $status
