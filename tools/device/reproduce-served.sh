#!/usr/bin/env bash
# Reproduce every bundle the site serves, as a reader would: `glossary serve --drafts`
# on this machine (nobody has signed this repository's entries, so only a drafts build
# has pages), then for each table's page the `glossary reproduce ...` command read off
# the served page, run with --no-ncu (NCU=1: with the ncu pass). One log per bundle and a
# summary come back in $OUT as reproduce.tgz (reproduce-ncu.tgz with NCU=1).
#
#   tools/device/reproduce-served.sh     # on the device machine, from the repo root
#   ONLY='roofline|warp-shuffle' tools/device/reproduce-served.sh   # bundles whose URL matches
set -uo pipefail
export PATH="$PWD/.device:$PATH"
OUT=${OUT:-/tmp/out}
PORT=${PORT:-8799}
NCU=${NCU:-0}
if [ "$NCU" = 1 ]; then ncu_flag=(); tarball=reproduce-ncu; else ncu_flag=(--no-ncu); tarball=reproduce; fi
mkdir -p "$OUT/reproduce"
nvidia-smi -L | tee -a "$OUT/gpu.txt"
# A reader's own key signs what they measured: READER_KEY, else a throwaway one made here
# (the device machine has no ssh-keygen: carry one in .device/keys/).
reader_key=${READER_KEY:-}
if [ -z "$reader_key" ]; then
  reader_key=$(mktemp -d)/reader
  ssh-keygen -q -t ed25519 -N '' -f "$reader_key" -C reader
fi
# curl where it is installed, else Python's urllib.
get() {
  if command -v curl >/dev/null; then curl -sf "$1"
  else python3 -c 'import sys,urllib.request;sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' "$1" 2>/dev/null; fi
}
glossary serve --drafts --port "$PORT" >"$OUT/serve.log" 2>&1 &
serve=$!
trap 'kill $serve 2>/dev/null' EXIT
for _ in $(seq 1 120); do
  get "http://127.0.0.1:$PORT/" >/dev/null && break
  sleep 1
done
# Every entry's served page; from each, the reproduce commands it prints; each bundle once.
pages=$(for f in content/terms/*.md content/lessons/*.md content/guides/*.md; do
  kind=$(basename "$(dirname "$f")"); echo "$kind/$(basename "$f" .md)/"
done)
urls=$(for path in $pages; do
  get "http://127.0.0.1:$PORT/$path" | grep -o "glossary reproduce http://127.0.0.1:$PORT/reproduce/[^ <]*\.json"
done | sort -u | awk '{print $3}' | grep -E "${ONLY:-.}")
echo "bundles served: $(echo "$urls" | wc -w)" | tee "$OUT/reproduce/summary.txt"
status=0
for url in $urls; do
  name=$(echo "$url" | sed 's#.*/reproduce/##; s#/#_#g; s#\.json$##')
  start=$(date +%s.%N)
  glossary reproduce "$url" "${ncu_flag[@]}" --key "$reader_key" --out "$OUT/contrib-$name" \
    >"$OUT/reproduce/$name.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  end=$(date +%s.%N)
  printf '%s: %s s, exit %s\n' "$url" "$(awk "BEGIN{printf \"%.1f\", $end - $start}")" "$rc" | tee -a "$OUT/reproduce/summary.txt"
done
rm -rf "$OUT"/contrib-*
tar czf "$OUT/$tarball.tgz" -C "$OUT" reproduce && rm -rf "$OUT/reproduce"
exit $status
