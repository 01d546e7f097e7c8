#!/usr/bin/env bash
# Bulk signing (#15, item 5): one `review sign SLUG` call on an N-entry project, and signing
# all N entries with `--all-waiting`, as the author and then as the reviewer. Uses the
# synthetic corpus, which registers two role-named fixture people with throwaway keys it
# generates (ROOT/throwaway-keys/, passed with --key).
#
#   cargo build --release --features corpus && bench/sign.sh          # N=10000
#   N=1000 RUNS=3 bench/sign.sh
#   WORK=/var/tmp bench/sign.sh       # on a disk instead of the RAM disk (fsync costs)
#
# Targets: one call under 150 ms, all N under 20 s (each role). Prints one Markdown table:
# median wall time, CPU (user + sys) and peak RSS of each operation, from /usr/bin/time,
# then whether the build after signing publishes every entry (the signatures verify).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
RUNS=${RUNS:-5}
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release}
G="$BIN/glossary"
# The RAM disk by default, like bench/run.sh, so a busy disk does not decide the result.
WORK=${WORK:-$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")}
work=$(mktemp -d -p "$WORK" sign-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
root="$work/project"
"$BIN/glossary-corpus" write --n "$N" --glossary "$root" --templates templates >/dev/null
keys="$root/throwaway-keys"
reviews="$root/content/reviews"

# One timed run of "$@": appends "wall cpu rss_kb" to the file named by $1.
timed() {
  local out=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/time" >>"$out"
}

# Median of a column (1 wall, 2 CPU, 3 RSS) of a timings file; min-max of the wall.
median() { sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
range() { sort -n -k1 "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }'; }

# One call: re-sign one entry as its reviewer (what a reviewer does after reading a diff).
slug=$(ls "$root/content/terms" | sed -n "$((N / 2 + 1))p" | sed 's/\.md$//')
for _ in $(seq "$RUNS"); do
  timed "$work/one" "$G" review sign "$slug" --as reviewer --key "$keys/reviewer-b" --root "$root"
done

# All N, as the author: every run starts from no signatures at all.
for _ in $(seq "$RUNS"); do
  rm -rf "$reviews"
  timed "$work/author" "$G" review sign --all-waiting --as author --key "$keys/author-a" --root "$root"
done
# All N, as the reviewer: every run starts from the author's signatures alone (the
# reviewer's pass needs the author's signatures to be current).
cp -r "$reviews" "$work/authored"
for _ in $(seq "$RUNS"); do
  rm -rf "$reviews"
  cp -r "$work/authored" "$reviews"
  timed "$work/reviewer" "$G" review sign --all-waiting --as reviewer --key "$keys/reviewer-b" --root "$root"
done
published=$("$G" build --root "$root" --out "$work/site" | head -1)

echo "corpus: $N synthetic terms on $(stat -f -c %T "$work") ($WORK), $RUNS runs each, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "build after signing: $published"
echo
echo "| N | operation | median wall (ms) | median CPU (s) | peak RSS (MB) | wall min-max (ms) |"
echo "|---:|---|---:|---:|---:|---:|"
row() {
  local f=$1 what=$2
  awk -v n="$N" -v what="$what" -v wall="$(median "$f" 1)" -v cpu="$(median "$f" 2)" \
    -v rss="$(median "$f" 3)" -v range="$(range "$f")" 'BEGIN {
      split(range, r, "-")
      printf "| %d | %s | %.0f | %.2f | %.0f | %.0f-%.0f |\n", n, what, wall * 1000, cpu, rss / 1024, r[1] * 1000, r[2] * 1000
    }'
}
row "$work/one" "\`review sign SLUG --as reviewer\` (one entry)"
row "$work/author" "\`review sign --all-waiting --as author\` (all $N)"
row "$work/reviewer" "\`review sign --all-waiting --as reviewer\` (all $N)"
echo
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v < t ? "PASS" : "FAIL") }'; }
echo "$(verdict "$(median "$work/one" 1)" 0.150)  one call under 150 ms"
echo "$(verdict "$(median "$work/author" 1)" 20)  all $N as author under 20 s"
echo "$(verdict "$(median "$work/reviewer" 1)" 20)  all $N as reviewer under 20 s"
