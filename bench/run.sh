#!/usr/bin/env bash
# Build speed at scale: `glossary build` beside Hugo on the same synthetic corpus.
#
#   bench/run.sh                 # N = 1,000 and 10,000, a warm-up then 5 timed runs each
#   RUNS=3 SIZES="1000" bench/run.sh
#
# Takes minutes and installs Hugo (Debian's 0.111) if it is missing: run it by hand, never
# in CI. Prints one table (median wall time, CPU time = user + sys, peak RSS; ratio
# glossary/Hugo) and PASS/FAIL for the targets of issue #7. Every timed run is cold: both
# output generations are removed first. Also prints the worst per-query search download.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-5}
SIZES=${SIZES:-"1000 10000"}
WORK=${BENCH_DIR:-/tmp/glossary-bench}
EDIT_N=${EDIT_N:-10000}
TARGET=${CARGO_TARGET_DIR:-target}

need() { command -v "$1" >/dev/null 2>&1 || { echo "installing $2" >&2; apt-get install -y "$2" >&2; }; }
need hugo hugo
need bc bc
[ -x /usr/bin/time ] || { echo "installing time" >&2; apt-get install -y time >&2; }

cargo build --release --bins --features corpus >&2
BIN="$TARGET/release"
mkdir -p "$WORK"
RESULTS="$WORK/results.txt"
: > "$RESULTS"

# One timed run: appends "tool n wall_s cpu_s rss_kb" to the results.
timed() {
  local tool=$1 n=$2; shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" > /dev/null 2> "$WORK/stderr.txt" || {
    echo "$tool N=$n failed:" >&2; cat "$WORK/stderr.txt" >&2; exit 1; }
  awk -v t="$tool" -v n="$n" '{ printf "%s %s %s %.2f %s\n", t, n, $1, $2 + $3, $4 }' "$WORK/time.txt" >> "$RESULTS"
}

for n in $SIZES; do
  echo "N=$n: writing the corpus" >&2
  "$BIN/glossary-corpus" write --n "$n" --glossary "$WORK/glossary-$n" --hugo "$WORK/hugo-$n" --templates templates >&2
  rm -rf "$WORK/glossary-$n-out" "$WORK/.glossary-$n-out.prev" "$WORK/hugo-$n-out"
  for tool in glossary hugo; do
    if [ "$tool" = glossary ]; then
      cmd=("$BIN/glossary" build --root "$WORK/glossary-$n" --out "$WORK/glossary-$n-out")
    else
      cmd=(hugo --source "$WORK/hugo-$n" --destination "$WORK/hugo-$n-out" --quiet)
    fi
    echo "N=$n: $tool, warm-up and $RUNS runs" >&2
    "${cmd[@]}" > /dev/null
    # Cold: both output generations removed before each run (`.OUT.prev` is recycled).
    for _ in $(seq "$RUNS"); do
      rm -rf "$WORK/glossary-$n-out" "$WORK/.glossary-$n-out.prev" "$WORK/hugo-$n-out"
      timed "$tool" "$n" "${cmd[@]}"
    done
  done
  echo "N=$n: search: $(python3 bench/search_size.py "$WORK/glossary-$n-out")" >&2
done

echo "N=$EDIT_N: one edited entry through pipeline::Session" >&2
[ -d "$WORK/glossary-$EDIT_N" ] || "$BIN/glossary-corpus" write --n "$EDIT_N" --glossary "$WORK/glossary-$EDIT_N" --templates templates >&2
EDIT_MS=$("$BIN/glossary-corpus" time-edit --root "$WORK/glossary-$EDIT_N" --out "$WORK/serve-$EDIT_N" --runs 7)

median() { # tool n column
  awk -v t="$1" -v n="$2" -v c="$3" '$1 == t && $2 == n { print $c }' "$RESULTS" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo
echo "glossary $(git describe --always --dirty 2>/dev/null || echo '?'), $(hugo version | cut -d' ' -f1-2), $(nproc) cores, $(date -u +%F), median of $RUNS runs after a warm-up"
echo
printf "| %6s | %-8s | %10s | %10s | %13s |\n" N tool "wall (s)" "CPU (s)" "peak RSS (MB)"
printf "|-------:|----------|-----------:|-----------:|--------------:|\n"
for n in $SIZES; do
  for tool in glossary hugo; do
    printf "| %6s | %-8s | %10.2f | %10.2f | %13.0f |\n" "$n" "$tool" \
      "$(median $tool $n 3)" "$(median $tool $n 4)" "$(echo "$(median $tool $n 5) / 1024" | bc -l)"
  done
  printf "| %6s | %-8s | %10.2f | %10.2f | %13.2f |\n" "$n" "ratio" \
    "$(echo "$(median glossary $n 3) / $(median hugo $n 3)" | bc -l)" \
    "$(echo "$(median glossary $n 4) / $(median hugo $n 4)" | bc -l)" \
    "$(echo "$(median glossary $n 5) / $(median hugo $n 5)" | bc -l)"
done
echo
echo "ratio = glossary / Hugo. One edited entry at N=$EDIT_N (pipeline::Session::rebuild + writing its files, --drafts, median of 7): $EDIT_MS ms"
echo

verdict() { if [ "$(echo "$1" | bc -l)" = 1 ]; then echo PASS; else echo FAIL; fi; }
if [[ " $SIZES " == *" 10000 "* && " $SIZES " == *" 1000 "* ]]; then
  g10=$(median glossary 10000 3); h10=$(median hugo 10000 3); g1=$(median glossary 1000 3)
  rss=$(echo "$(median glossary 10000 5) / 1024" | bc -l)
  printf "%s  wall time at N=10,000 at most 1/4 of Hugo's: %.2f s vs %.2f s (ratio %.3f)\n" \
    "$(verdict "$g10 * 4 <= $h10")" "$g10" "$h10" "$(echo "$g10 / $h10" | bc -l)"
  printf "%s  peak RSS at N=10,000 under 400 MB: %.0f MB\n" "$(verdict "$rss < 400")" "$rss"
  printf "%s  linear in N: time at 10,000 / time at 1,000 under 11: %.2f\n" \
    "$(verdict "$g10 / $g1 < 11")" "$(echo "$g10 / $g1" | bc -l)"
fi
printf "%s  one edited entry rebuilt in under 100 ms at N=%s: %s ms\n" "$(verdict "$EDIT_MS < 100")" "$EDIT_N" "$EDIT_MS"
