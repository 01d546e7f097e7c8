#!/usr/bin/env bash
# Browser tests of the built site. Builds the glossary binary, writes the signed fixture
# site, installs the pinned npm packages if needed and runs the tests in headless Debian
# Chromium. Exits non-zero on any failure. Without Chromium the browser tests are skipped
# with a message, except under CI=1, where a missing Chromium is itself a failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
chromium="${CHROMIUM:-/usr/bin/chromium}"

if [[ ! -x "$chromium" ]]; then
  if [[ "${CI:-}" == "1" ]]; then
    echo "error: Chromium is not installed at $chromium (apt-get install -y chromium); CI requires the browser tests" >&2
    exit 1
  fi
  echo "warning: Chromium is not installed at $chromium; browser tests will be skipped" >&2
  # For the list the test command ends with (tests/skipped.sh).
  skipped="${CARGO_TARGET_DIR:-$repo/target}/tmp/skipped"
  mkdir -p "$skipped"
  echo "browser tests (tests/browser/run.sh): Chromium is not installed at $chromium" >"$skipped/browser"
fi

cd "$repo"
# GLOSSARY_PROFILE picks a cargo profile (default dev): a profile of its own keeps a target
# dir shared with other checkouts from swapping the binary under the tests.
profile="${GLOSSARY_PROFILE:-dev}"
cargo build --quiet --profile "$profile"
# The 10,000-entry search test writes the synthetic corpus (a dev tool, `--features corpus`)
# and builds it: optimized, as unoptimized signing and building at that size take many
# minutes against seconds. In the `browser` profile (Cargo.toml), never `--release`:
# target/release/glossary is the binary the README puts on PATH, and the tests leave it be.
cargo build --quiet --profile browser --features corpus --bins
target="${CARGO_TARGET_DIR:-$repo/target}"
export GLOSSARY_RELEASE_DIR="$target/browser"
[[ "$profile" == dev ]] && profile_dir=debug || profile_dir="$profile"
export GLOSSARY_BIN="$target/$profile_dir/glossary"

fixture="$(mktemp -d)"
trap 'rm -rf "$fixture"' EXIT
GLOSSARY_FIXTURE_OUT="$fixture/site" cargo test --quiet --profile "$profile" --test browser_fixture -- --ignored --exact write_browser_fixture >/dev/null
export GLOSSARY_FIXTURE="$fixture/site"
GLOSSARY_SEARCH_FIXTURE_OUT="$fixture/search" cargo test --quiet --profile "$profile" --test browser_fixture -- --ignored --exact write_search_fixture >/dev/null
export GLOSSARY_SEARCH_FIXTURE="$fixture/search"
GLOSSARY_IMPORTED_FIXTURE_OUT="$fixture/imported" cargo test --quiet --profile "$profile" --test browser_fixture -- --ignored --exact write_imported_fixture >/dev/null
export GLOSSARY_IMPORTED_FIXTURE="$fixture/imported"
GLOSSARY_NODES_FIXTURE_OUT="$fixture/nodes" cargo test --quiet --profile "$profile" --test browser_fixture -- --ignored --exact write_nodes_fixture >/dev/null
export GLOSSARY_NODES_FIXTURE="$fixture/nodes"
GLOSSARY_STATIC_SCRIPTS_FIXTURE_OUT="$fixture/static-scripts" cargo test --quiet --profile "$profile" --test browser_fixture -- --ignored --exact write_static_scripts_fixture >/dev/null
export GLOSSARY_STATIC_SCRIPTS_FIXTURE="$fixture/static-scripts"

cd "$here"
if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules ]]; then
  npm ci --no-audit --no-fund
fi
mkdir -p out
node --test --test-concurrency=1 tests/
