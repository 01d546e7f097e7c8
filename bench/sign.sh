#!/usr/bin/env bash
# Bulk signing (#15, item 5): one `review sign` call on an N-entry project, and signing
# all N entries (`--all-ready`, each role). Uses the synthetic corpus, which registers two
# role-named fixture people with throwaway keys it generates (ROOT/throwaway-keys/).
#
#   cargo build --release --features corpus && bench/sign.sh          # N=10000
#   N=1000 bench/sign.sh
#
# Targets: one call under 150 ms, all N under 20 s. Prints one Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
RUNS=${RUNS:-7}
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release}
G="$BIN/glossary"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/project"
"$BIN/glossary-corpus" write --n "$N" --glossary "$root" --templates templates >/dev/null
keys="$root/throwaway-keys"

ms() { python3 -c 'import sys,time; print(f"{(time.time()-float(sys.argv[1]))*1000:.1f}")' "$1"; }
now() { python3 -c 'import time; print(time.time())'; }

# One call: re-sign one entry as its reviewer (what a reviewer does after reading a diff).
slug=$(ls "$root/content/terms" | sed -n "$((N / 2 + 1))p" | sed 's/\.md$//')
one=()
for _ in $(seq "$RUNS"); do
  t=$(now)
  "$G" review sign "$slug" --as reviewer --key "$keys/reviewer-b" --root "$root" >/dev/null
  one+=("$(ms "$t")")
done
one_median=$(printf '%s\n' "${one[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")
one_range="$(printf '%s\n' "${one[@]}" | sort -n | head -1)-$(printf '%s\n' "${one[@]}" | sort -n | tail -1)"

# All N: every signature removed, then the author signs every ready entry, then the
# reviewer does (the reviewer's pass needs the author's signatures to be current).
rm -rf "$root/content/reviews"
t=$(now)
"$G" review sign --all-ready --as author --key "$keys/author-a" --root "$root" >/dev/null
author_ms=$(ms "$t")
t=$(now)
"$G" review sign --all-ready --as reviewer --key "$keys/reviewer-b" --root "$root" >/dev/null
reviewer_ms=$(ms "$t")
published=$("$G" build --root "$root" --out "$work/site" | head -1)

verdict() { python3 -c 'import sys; print("PASS" if float(sys.argv[1]) < float(sys.argv[2]) else "FAIL")' "$1" "$2"; }
echo "corpus: $N synthetic terms; build after signing: $published"
echo
echo "| N | what | median or single run | min-max | target | result |"
echo "|---|---|---|---|---|---|"
echo "| $N | one \`review sign SLUG\` call (median of $RUNS) | ${one_median} ms | ${one_range} ms | < 150 ms | $(verdict "$one_median" 150) |"
echo "| $N | \`review sign --all-ready --as author\` (all $N) | ${author_ms} ms | - | < 20000 ms | $(verdict "$author_ms" 20000) |"
echo "| $N | \`review sign --all-ready --as reviewer\` (all $N) | ${reviewer_ms} ms | - | < 20000 ms | $(verdict "$reviewer_ms" 20000) |"
