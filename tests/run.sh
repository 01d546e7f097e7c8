#!/usr/bin/env bash
# The test command: the README's second set-up line, and what CI (.ci/run) runs. Unit,
# integration and browser tests (tests/browser/run.sh runs `npm ci` for its pinned
# packages), ending with the list of tests that skipped themselves and why: cargo counts a
# skipped test as passed, so without the list a missing GPU, Slurm, actionlint or
# Chromium would read as a pass. Fails, too, if the tests changed target/release/glossary,
# the binary the README puts on PATH (tests/release-untouched.sh). Exits with the tests'
# status.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tests/skipped.sh --clear
status=0
release="$(tests/release-untouched.sh stamp)"
cargo test --locked && tests/browser/run.sh || status=$?
tests/release-untouched.sh check "$release" || status=1
tests/skipped.sh
exit $status
