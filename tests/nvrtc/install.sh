#!/usr/bin/env bash
# Install NVIDIA's NVRTC library (pinned, hash-checked wheel from PyPI) into its own
# virtual environment, for the dry run off the node (tests/verify_offline.rs): every
# experiment's kernels compiled for the node's architecture without a GPU. Prints the
# folder holding libnvrtc.so.13; put it on LD_LIBRARY_PATH.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${GLOSSARY_NVRTC_VENV:-/tmp/glossary-nvrtc}
lib() { "$venv/bin/python" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13", "lib"))'; }
if [ ! -x "$venv/bin/python" ] || [ ! -e "$(lib)/libnvrtc.so.13" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --require-hashes -r "$here/requirements.txt"
fi
ls "$(lib)/libnvrtc.so.13" >&2
lib
