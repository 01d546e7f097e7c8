#!/usr/bin/env bash
# The README's set-up figures, measured as a new user meets them: a fresh clone of one
# commit in a temporary folder, an empty cargo home (so crate downloads count), and the
# README's two set-up commands, read from its `## Set-up` section and run as written, each
# under GNU time. Prints a Markdown table: wall time, peak memory, what target/ holds after
# each command, the test counts (cargo's and the browser suite's) and the skipped tests as
# tests/skipped.sh lists them, plus the cargo home and node_modules sizes.
#
#   bench/setup-figures.sh            # HEAD
#   bench/setup-figures.sh 546b1e6    # any commit of this repository
#
# Settings (environment):
#   WORK   where the clone, its cargo home and the logs go (a new folder under /var/tmp);
#          kept afterwards, with first.log, second.log and the time reports
#
# Takes as long as a new user's set-up (about 12 minutes on 2 cores) and needs what the
# README lists (Rust, Node.js, ssh-keygen, Chromium). Run it on a quiet machine: other
# work on the cores lengthens both times. Peak memory is GNU time's "maximum resident set
# size": the largest single process the command ran (the release build's link), not the
# sum of processes running at once. Never run by CI.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
commit=${1:-HEAD}
sha=$(git -C "$repo" rev-parse --verify "$commit^{commit}")
work=${WORK:-$(mktemp -d /var/tmp/glossary-setup.XXXXXX)}
mkdir -p "$work"
clone="$work/glossary"
[ -e "$clone" ] && { echo "error: $clone exists; give an empty WORK" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "error: GNU time is not installed (apt-get install time)" >&2; exit 1; }

git clone --quiet --no-local "$repo" "$clone"
git -C "$clone" checkout --quiet --detach "$sha"

# The README's commands: the lines of the first `sh` block under `## Set-up`.
mapfile -t commands < <(awk '
  /^## Set-up/ { in_section = 1; next }
  in_section && /^## / { exit }
  in_section && /^```sh/ { in_block = 1; next }
  in_block && /^```/ { exit }
  in_block && NF { print }
' "$clone/README.md")
[ "${#commands[@]}" -eq 2 ] || {
  echo "error: expected the README's two set-up commands, found ${#commands[@]}: ${commands[*]}" >&2
  exit 1
}

# A new user's environment: an empty cargo home (rustup's toolchains stay where rustup
# keeps them), no target folder or flags of this machine's own, nothing on PATH from
# this checkout.
export CARGO_HOME="$work/cargo-home"
mkdir -p "$CARGO_HOME"
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR RUSTFLAGS CARGO_BUILD_JOBS GLOSSARY_PROFILE
cd "$clone"

# Runs command $2 under GNU time, output in $work/$1.log, time report in $work/$1.time.
timed() {
  local name=$1 command=$2 status=0
  echo "running: $command (log: $work/$name.log)" >&2
  /usr/bin/time -v -o "$work/$name.time" bash -c "$command" >"$work/$name.log" 2>&1 || status=$?
  echo "$status" >"$work/$name.status"
}
field() { # time report, field name
  sed -n "s/^[[:space:]]*$2: //p" "$1" | head -n1
}
seconds() { # GNU time's h:mm:ss or m:ss.ss
  awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.0f", s }' <<<"$1"
}
mb() { local m; m=$(du -sm "$1" 2>/dev/null | cut -f1) || true; echo "${m:-0}"; }

timed first "${commands[0]}"
target_first=$(mb target)
timed second "${commands[1]}"
target_second=$(mb target)

# cargo's counts (every `test result:` line), the browser suite's (node --test's summary).
read -r passed failed ignored < <(awk '
  /^test result:/ {
    for (i = 1; i <= NF; i++) {
      if ($(i + 1) ~ /^passed/) p += $i
      if ($(i + 1) ~ /^failed/) f += $i
      if ($(i + 1) ~ /^ignored/) g += $i
    }
  }
  END { print p + 0, f + 0, g + 0 }
' "$work/second.log")
browser_pass=$(sed -n 's/^# pass //p' "$work/second.log" | tail -n1)
browser_fail=$(sed -n 's/^# fail //p' "$work/second.log" | tail -n1)
skipped=$(grep '^skipped tests:' "$work/second.log" | tail -n1)

row() { # name, command
  local t="$work/$1.time"
  local wall rss
  wall=$(seconds "$(field "$t" 'Elapsed (wall clock) time (h:mm:ss or m:ss)')")
  rss=$(field "$t" 'Maximum resident set size (kbytes)')
  printf '| `%s` | %s | %d s (%.1f min) | %d MB |\n' "${2//|/\\|}" "$(cat "$work/$1.status")" "$wall" \
    "$(awk -v s="$wall" 'BEGIN { print s / 60 }')" "$((rss / 1024))"
}

echo
echo "Set-up of $(git log -1 --format='%h (%cs)' "$sha") on a fresh clone, empty cargo home, $(date -u +%F):"
echo "$(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)), $(free -g | awk '/^Mem:/ { print $2 }') GB of memory."
echo
echo '| command | exit | wall | peak memory (largest process) |'
echo '|---|---:|---:|---:|'
row first "${commands[0]}"
row second "${commands[1]}"
echo
echo "- target/: $target_first MB after the first command, $target_second MB after the second"
echo "- cargo home: $(mb "$CARGO_HOME") MB; tests/browser/node_modules: $(mb tests/browser/node_modules) MB"
echo "- cargo tests: $passed passed, $failed failed, $ignored ignored"
echo "- browser tests: ${browser_pass:-none run} passed, ${browser_fail:-0} failed"
echo "- ${skipped:-skipped tests: (no list printed)}"
echo "- logs and time reports: $work"
