#!/usr/bin/env bash
# Build and run the independent nvcc programs of tools/cuda-reference/ on the GPU machine,
# in the same call as `glossary verify` (tools/device/remeasure.sh), so both time the same
# GPU unit: each program prints one line per row ("<experiment> <label> median X ms ...")
# to compare with the record's median for that row. Logs come back in $OUT/references/.
#
#   REFS="launch_overhead async_copy tensor_cores roofline warp_shuffle" tools/device/references.sh
#
# A program is built for sm_90 unless its first line names another target, as
# "// nvcc-arch: sm_90a" (wgmma needs the arch-specific one); it is built for that target
# alone (-gencode, no PTX for another), since nvcc's -arch=sm_90a also emits compute_90
# PTX, which cannot hold wgmma.
set -uo pipefail
OUT=${OUT:-/tmp/out}
REFS=${REFS:-launch_overhead async_copy tensor_cores roofline warp_shuffle}
mkdir -p "$OUT/references"
nvidia-smi -L | tee -a "$OUT/gpu.txt"
status=0
for r in $REFS; do
  src=tools/cuda-reference/${r}_ref.cu
  bin=$(mktemp -d)/${r}_ref
  arch=$(head -n 1 "$src" | sed -n 's|^// nvcc-arch: *\(sm_[0-9]*a\{0,1\}\) *$|\1|p')
  arch=${arch:-sm_90}
  if ! nvcc -O3 -std=c++17 -gencode "arch=compute_${arch#sm_},code=$arch" "$src" -o "$bin" \
      >"$OUT/references/$r.build.log" 2>&1; then
    echo "$r: nvcc failed (see references/$r.build.log)"; status=1; continue
  fi
  "$bin" >"$OUT/references/$r.txt" 2>&1 || { echo "$r: run failed"; status=1; }
  cat "$OUT/references/$r.txt"
done
exit $status
