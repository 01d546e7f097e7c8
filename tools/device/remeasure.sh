#!/usr/bin/env bash
# Re-measure every experiment on the H200 node, as run through the device tool: the
# glossary binary and the node's private key travel in .device/ (ignored by git; the key
# is never committed), and the records, history runs included, come back as one tarball
# in $OUT. PASSES separate `verify` processes per experiment (default 2), so the runs
# of one call are independent processes on one GPU unit; the GPU's UUID is in each record.
#
#   tools/device/remeasure.sh            # on the device machine, from the repo root
#   ONLY="roofline warp-shuffle" PASSES=1 tools/device/remeasure.sh   # some experiments
#
# Each verify process is stopped after PER_RUN_S seconds (default 240), so one experiment
# that hangs (a kernel that never returns) cannot take the whole call with it.
set -uo pipefail
PASSES=${PASSES:-2}
PER_RUN_S=${PER_RUN_S:-240}
export PATH="$PWD/.device:$PATH"
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/gpu.txt"
ids=${ONLY:-$(for f in measurements/*/experiment.yaml; do basename "$(dirname "$f")"; done)}
status=0
for pass in $(seq 1 "$PASSES"); do
  start=$(date +%s)
  for id in $ids; do
    timeout "$PER_RUN_S" glossary verify --node h200 --key .device/keys/h200 --only "$id" >>"$OUT/verify.log" 2>&1 \
      || { echo "pass $pass: $id failed (see verify.log)"; status=1; }
  done
  echo "pass $pass: $(( $(date +%s) - start )) s" | tee -a "$OUT/verify.log"
done
tar czf "$OUT/records.tgz" measurements/*/records
exit $status
