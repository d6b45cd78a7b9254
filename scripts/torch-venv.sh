#!/usr/bin/env bash
# Create (or reuse) a virtual environment for probing under one torch version, outside the checkout.
# Usage: bash scripts/torch-venv.sh VERSION     e.g. 2.9.1, 2.13.0, 2.15.0
# Prints the environment's python on its last line. Folder: $KEXPORT_VENVS/torch-VERSION
# (default ~/.cache/sphinx-kexport/venvs). Only 2.13.0 has a CPU-only wheel where we install;
# the others are the default builds (CUDA libraries included, several GB each), which run on CPU.
# pip's own cache (~/.cache/pip) keeps every wheel it downloads, so the CUDA libraries two versions
# share are downloaded once.
set -euo pipefail
VERSION="${1:?usage: bash scripts/torch-venv.sh TORCH_VERSION (e.g. 2.15.0)}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENVS="${KEXPORT_VENVS:-$HOME/.cache/sphinx-kexport/venvs}"
VENV="$VENVS/torch-$VERSION"
PY="$VENV/bin/python"
mkdir -p "$VENVS"
if [ ! -x "$PY" ]; then
  echo "==> creating $VENV" >&2
  python3 -m venv "$VENV"
fi
# The project's pins, less torch's: this environment has its own torch.
CONSTRAINTS="$VENV/constraints.txt"
grep -v '^torch==' "$ROOT/scripts/constraints.txt" > "$CONSTRAINTS"
# A machine-wide pip configuration may cap torch with a constraints file (this workplace caps it at the
# releases on its disk): the version asked for here is the one wanted, and these pins replace that file.
export PIP_CONSTRAINT="$CONSTRAINTS"
PIP=("$PY" -m pip install -q --disable-pip-version-check)
if ! "$PY" -c "import sys, torch; sys.exit(torch.__version__.split('+')[0] != '$VERSION')" >/dev/null 2>&1; then
  echo "==> installing torch==$VERSION into $VENV (not the CPU-only build unless it is 2.13.0 here: several GB)" >&2
  "${PIP[@]}" "torch==$VERSION"
fi
echo "==> installing sphinx-kexport's probe and the example's library" >&2
# pytest: the example's case modules take cases from kornia's own tests
"${PIP[@]}" -e "$ROOT[probe]" kornia pytest
"$PY" -c "import torch, kornia, onnxruntime; print('torch', torch.__version__, 'kornia', kornia.__version__, 'onnxruntime', onnxruntime.__version__)" >&2
echo "$PY"
