#!/usr/bin/env bash
# Install actionlint (pinned, hash-checked, from PyPI) into its own virtual environment,
# and ShellCheck, which actionlint runs on every `run:` script. Prints the path of the
# actionlint binary; tests/workflow_lint.rs reads it from $ACTIONLINT.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${GLOSSARY_ACTIONLINT_VENV:-/tmp/glossary-actionlint}
if ! command -v shellcheck >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq shellcheck >/dev/null
fi
if [ ! -x "$venv/bin/actionlint" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$here/requirements.txt"
fi
"$venv/bin/actionlint" -version >&2
echo "$venv/bin/actionlint"
