#!/usr/bin/env bash
# Set up .venv (+ Debian chromium/chromium-driver) and run the whole test suite.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup-env.sh" test
cd "$ROOT"
exec .venv/bin/python -m pytest -q -ra --durations=30 "$@"
