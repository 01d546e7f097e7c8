#!/usr/bin/env bash
# Runs each fuzz target (fuzz/fuzz_targets/) for a bounded time from its seed corpus in
# fuzz/corpus/<target>/, as CI does: `fuzz/run.sh` (all targets) or `fuzz/run.sh record
# bundle`. FUZZ_SECONDS (default 60) bounds each target's run; any input taking over
# FUZZ_INPUT_TIMEOUT seconds (default 5) counts as a failure, as a crash does. New inputs
# the fuzzer finds go to a temporary folder, so the corpus in the repository changes only
# by hand; a failing input is kept in fuzz/artifacts/<target>/ and the script exits 1.
#
# cargo-fuzz instruments the code with flags only a nightly compiler takes
# (-Zsanitizer=address and the coverage passes). A machine of this project has one stable
# toolchain and cannot fetch another, so the stable compiler is told to take them
# (RUSTC_BOOTSTRAP=1), which is what nightly is; set FUZZ_TOOLCHAIN=nightly to use a
# nightly toolchain instead where one is installed.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${FUZZ_SECONDS:-60}
input_timeout=${FUZZ_INPUT_TIMEOUT:-5}
CARGO_FUZZ_VERSION=0.13.2

if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  targets=(front_matter experiment expression signoff record bundle)
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi

if [ -n "${FUZZ_TOOLCHAIN:-}" ]; then
  fuzz=(cargo "+$FUZZ_TOOLCHAIN" fuzz)
else
  export RUSTC_BOOTSTRAP=1
  fuzz=(cargo fuzz)
fi

# One build of every target (the library is compiled once, instrumented).
"${fuzz[@]}" build

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in "${targets[@]}"; do
  mkdir -p "$work/$target"
  echo "fuzz: $target for ${seconds}s"
  # The first folder takes what the fuzzer finds; the repository's seeds are read only.
  "${fuzz[@]}" run "$target" "$work/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout="$input_timeout" -rss_limit_mb=4096 \
    -seed="${FUZZ_SEED:-1}" \
    -print_final_stats=1
done
echo "fuzz: ${#targets[@]} targets ran ${seconds}s each without a failure"
