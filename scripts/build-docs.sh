#!/usr/bin/env bash
# Main job: set up .venv, then build example_docs/ with -W (warnings are errors).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup-env.sh" docs
cd "$ROOT"
.venv/bin/python -m sphinx -W --keep-going -b html example_docs example_docs/_build/html
echo
echo "HTML written to $ROOT/example_docs/_build/html/index.html"
echo "The survey page: $ROOT/example_docs/_build/html/export-support.html"
