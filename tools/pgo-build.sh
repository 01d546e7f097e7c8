#!/usr/bin/env bash
# The release binary, built with profile-guided optimization (PGO): an instrumented build
# is run on training sites, and the counts it records steer the optimized build's inlining
# and code layout. On a 10,000-entry build it took 6-18% less CPU than the plain
# `cargo build --release` (same LTO profile) in four comparisons; bench/run.sh times
# both, side by side (the Performance chapter of the book).
#
#   tools/pgo-build.sh          # -> target/pgo/glossary (and target/pgo/glossary-corpus)
#
# Settings (environment):
#   PGO_DIR   where the two builds, the profiles and the binaries go (target/pgo)
#   TRAIN_N   entries in the synthetic training corpus (2000): a size bench/run.sh does
#             not time, so the timed corpus is never the one trained on
#   TRAIN_DIR where the training sites are written (/dev/shm/glossary-pgo-train)
#
# Training runs what a build does: this repository's own site (cold, then rebuilt into
# its output, then as a drafts preview) and a synthetic corpus (`glossary-corpus`, cold,
# then rebuilt). Needs `llvm-profdata` of the compiler's own LLVM: installed with
# `rustup component add llvm-tools` when missing. Takes about 10 minutes on 2 cores (two
# whole-program LTO builds, each into its own target folder so neither rebuilds the other
# or the plain release build).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=${CARGO_TARGET_DIR:-target}
PGO_DIR=${PGO_DIR:-$TARGET/pgo}
TRAIN_N=${TRAIN_N:-2000}
TRAIN_DIR=${TRAIN_DIR:-/dev/shm/glossary-pgo-train}
mkdir -p "$PGO_DIR"
PGO_DIR=$(cd "$PGO_DIR" && pwd)

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
PROFDATA="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$PROFDATA" ]; then
  echo "installing llvm-tools (llvm-profdata) with rustup" >&2
  rustup component add llvm-tools >&2
fi

RAW="$PGO_DIR/raw"
rm -rf "$RAW"
echo "PGO 1/4: instrumented build" >&2
CARGO_TARGET_DIR="$PGO_DIR/gen" RUSTFLAGS="-Cprofile-generate=$RAW" \
  cargo build --release --locked --bins --features corpus >&2
GEN="$PGO_DIR/gen/release"

echo "PGO 2/4: training runs" >&2
rm -rf "$TRAIN_DIR"
mkdir -p "$TRAIN_DIR"
"$GEN/glossary" build --root . --out "$TRAIN_DIR/own" > /dev/null
"$GEN/glossary" build --root . --out "$TRAIN_DIR/own" > /dev/null
"$GEN/glossary" build --root . --drafts --out "$TRAIN_DIR/own-drafts" > /dev/null
"$GEN/glossary-corpus" write --n "$TRAIN_N" --glossary "$TRAIN_DIR/corpus" --templates templates > /dev/null
"$GEN/glossary" build --root "$TRAIN_DIR/corpus" --out "$TRAIN_DIR/corpus-out" > /dev/null
"$GEN/glossary" build --root "$TRAIN_DIR/corpus" --out "$TRAIN_DIR/corpus-out" > /dev/null
rm -rf "$TRAIN_DIR"

echo "PGO 3/4: merging the profiles" >&2
"$PROFDATA" merge -o "$PGO_DIR/merged.profdata" "$RAW"

echo "PGO 4/4: optimized build" >&2
# A function the training never ran has no counts: that is expected, not a warning.
CARGO_TARGET_DIR="$PGO_DIR/use" \
  RUSTFLAGS="-Cprofile-use=$PGO_DIR/merged.profdata -Cllvm-args=-pgo-warn-missing-function=false" \
  cargo build --release --locked --bins --features corpus >&2
cp "$PGO_DIR/use/release/glossary" "$PGO_DIR/use/release/glossary-corpus" "$PGO_DIR/"
echo "$PGO_DIR/glossary" >&2
