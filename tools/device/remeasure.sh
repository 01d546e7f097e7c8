#!/usr/bin/env bash
# Re-measure every experiment on the node whose GPU the device tool lent (h200 or h100,
# read from nvidia-smi; NODE=name overrides), as run through the device tool: the
# glossary binary and the node's private key (.device/keys/<node>) travel in .device/
# (ignored by git; the key is never committed), and the records, history runs included, come back as one tarball
# in $OUT. PASSES separate `verify` processes per experiment (default 2), so the runs
# of one call are independent processes on one GPU unit; the GPU's UUID is in each record.
#
#   tools/device/remeasure.sh            # on the device machine, from the repo root
#   ONLY="roofline warp-shuffle" PASSES=1 tools/device/remeasure.sh   # some experiments
#   NODE=h100 tools/device/remeasure.sh   # name the node instead of reading the GPU
#
# Each verify process is stopped after PER_RUN_S seconds (default 240), so one experiment
# that hangs (a kernel that never returns) cannot take the whole call with it; no new one
# starts once DEADLINE_S seconds (default 540) have passed since the script began, so the
# records made so far still come back inside the device tool's 10-minute call.
set -uo pipefail
PASSES=${PASSES:-2}
PER_RUN_S=${PER_RUN_S:-240}
DEADLINE_S=${DEADLINE_S:-540}
began=$(date +%s)
export PATH="$PWD/.device:$PATH"
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/gpu.txt"
if [ -z "${NODE:-}" ]; then
  case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
    *H200*) NODE=h200 ;;
    *H100*) NODE=h100 ;;
    *) echo "no node of glossary.toml has this GPU: set NODE"; exit 2 ;;
  esac
fi
echo "node: $NODE" | tee -a "$OUT/gpu.txt"
# What the driver says of the card, kept beside the records (clocks, power limits, ECC).
nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1
ids=${ONLY:-$(for f in measurements/*/experiment.yaml; do basename "$(dirname "$f")"; done)}
status=0
for pass in $(seq 1 "$PASSES"); do
  start=$(date +%s)
  for id in $ids; do
    if [ $(( $(date +%s) - began + 30 )) -gt "$DEADLINE_S" ]; then
      echo "pass $pass: $id not run: the deadline (${DEADLINE_S} s) is near" | tee -a "$OUT/verify.log"; status=1; continue
    fi
    timeout "$PER_RUN_S" glossary verify --node "$NODE" --key ".device/keys/$NODE" --only "$id" >>"$OUT/verify.log" 2>&1 \
      || { echo "pass $pass: $id failed (see verify.log)"; status=1; }
  done
  echo "pass $pass: $(( $(date +%s) - start )) s" | tee -a "$OUT/verify.log"
done
tar czf "$OUT/records.tgz" measurements/*/records
exit $status
