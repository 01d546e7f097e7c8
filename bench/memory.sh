#!/usr/bin/env bash
# Peak memory of `glossary build` as the site grows: one cold build per N on a RAM disk.
#
#   bench/memory.sh                   # N = 1,000, 10,000 and 100,000
#   SIZES="1000 10000" bench/memory.sh
#
# Issue #15 asks that peak RSS not grow with N beyond what the site-wide outputs need:
# under 200 MB at 10,000 entries and under 600 MB at 100,000. Prints one Markdown table
# (N, wall, CPU = user + sys, peak RSS, RSS per entry) and PASS/FAIL for those two
# targets. Every run is cold: the output and `.OUT.prev` are both removed first. The
# corpus and the output live under WORK (default /dev/shm, a RAM disk, so the file system
# does not dominate); a 100,000-entry corpus takes about 1.6 GB and its site about 1.6 GB,
# and both are removed after each N. Run by hand, never in CI.
#
# Where the memory goes: live heap beside RSS over time, with the binary's own allocator,
# from `cargo build --release --features heap-count` and
# `GLOSSARY_HEAP_LOG=100 glossary build --root CORPUS --out OUT` (a line every 100 ms on
# standard error; src/heap_count.rs). The gap between the two is pages mimalloc holds
# around freed memory. Which allocation sites hold the live part: heaptrack, which sees
# only malloc, so build with the system allocator (`--features system-alloc`), run
# `heaptrack glossary build --root CORPUS --out OUT`, then
# `heaptrack_print -f heaptrack.*.zst --print-peaks 1` (a 100k build took 649 s under it, against about 19 s).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"1000 10000 100000"}
WORK=${BENCH_DIR:-/dev/shm/glossary-memory}
TARGET=${CARGO_TARGET_DIR:-target}

[ -x /usr/bin/time ] || { echo "installing time" >&2; apt-get install -y time >&2; }
cargo build --release --bins --features corpus >&2
BIN="$TARGET/release"
mkdir -p "$WORK"

rows=()
verdicts=()
for n in $SIZES; do
  site="$WORK/glossary-$n" out="$WORK/out-$n"
  echo "N=$n: writing the corpus" >&2
  rm -rf "$site"
  "$BIN/glossary-corpus" write --n "$n" --glossary "$site" --templates templates > /dev/null
  rm -rf "$out" "$WORK/.out-$n.prev"
  echo "N=$n: cold build" >&2
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" \
    "$BIN/glossary" build --root "$site" --out "$out" > /dev/null 2> "$WORK/stderr.txt" || {
    echo "N=$n: build failed:" >&2; cat "$WORK/stderr.txt" >&2; exit 1; }
  read -r wall user sys rss_kb < "$WORK/time.txt"
  rss_mb=$(( rss_kb / 1024 ))
  rows+=("$(awk -v n="$n" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss_kb" \
    'BEGIN { printf "| %7d | %8.2f | %7.2f | %13d | %16.1f |", n, w, u + s, r / 1024, r / n }')")
  case $n in
    10000) limit=200 ;;
    100000) limit=600 ;;
    *) limit= ;;
  esac
  if [ -n "$limit" ]; then
    if [ "$rss_mb" -lt "$limit" ]; then verdict=PASS; else verdict=FAIL; fi
    verdicts+=("$verdict  peak RSS at N=$n under $limit MB: $rss_mb MB")
  fi
  rm -rf "$site" "$out" "$WORK/.out-$n.prev"
done

echo "|       N | wall (s) | CPU (s) | peak RSS (MB) | RSS / entry (KB) |"
echo "|--------:|---------:|--------:|--------------:|-----------------:|"
printf '%s\n' "${rows[@]}"
echo
printf '%s\n' "${verdicts[@]}"
