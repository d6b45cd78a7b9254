#!/usr/bin/env bash
# Set up .venv (+ Debian chromium/chromium-driver) and run the whole test suite; then, where the second Python
# the package claims is installed, the probe's, the page's and the snapshot's tests again on it. Fails when either
# run fails. Extra arguments go to pytest in both runs (the second keeps only the paths under its folders).
#
# KEXPORT_SECOND_PYTHON: unset: python3.13 from PATH (or pyenv's), in .venv-3.13 (made and updated by setup-env.sh), the part
# skipped with a note when there is none; "off": skip it (a CI job that runs one Python); a path: that interpreter
# as it is, nothing installed into it (an environment made elsewhere; the checkout comes first on its path).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECOND_VERSION=3.13
SECOND_TESTS=(tests/probe tests/page tests/snapshot)

second="${KEXPORT_SECOND_PYTHON-}"
if [ -n "$second" ] && [ "$second" != off ]; then
  second="$(command -v "$second")" || { echo "KEXPORT_SECOND_PYTHON=$KEXPORT_SECOND_PYTHON: no such interpreter" >&2
                                        exit 2; }
  second="$(cd "$(dirname "$second")" && pwd)/$(basename "$second")"  # the script moves to the checkout
fi
# The second Python, where one runs: python3.13 on PATH (pyenv puts a shim there for every version it holds, which
# fails when run unless that version is selected), else pyenv's own install of it.
second_python() {
  local candidate root
  if "python$SECOND_VERSION" -V >/dev/null 2>&1; then command -v "python$SECOND_VERSION"; return 0; fi
  root="$(pyenv root 2>/dev/null)" || return 1
  for candidate in "$root"/versions/"$SECOND_VERSION"*/bin/"python$SECOND_VERSION"; do
    if "$candidate" -V >/dev/null 2>&1; then echo "$candidate"; return 0; fi
  done
  return 1
}

bash "$ROOT/scripts/setup-env.sh" test
cd "$ROOT"
if [ -z "$second" ]; then
  if found="$(second_python)"; then
    bash scripts/setup-env.sh test "$found"
    second="$ROOT/.venv-$SECOND_VERSION/bin/python"
  else
    second=off
    echo "==> python$SECOND_VERSION is not installed: the tests run on $(.venv/bin/python -V) only"
  fi
fi

# The second run's arguments: every option as given; of the paths, those under its folders; its folders when no
# path is given.
second_args=()
paths=0
kept=0
for arg in "$@"; do
  if [[ "$arg" != -* && -e "${arg%%::*}" ]]; then
    paths=$((paths + 1))
    for folder in "${SECOND_TESTS[@]}"; do
      if [[ "$arg" == "$folder" || "$arg" == "$folder"/* ]]; then second_args+=("$arg"); kept=$((kept + 1)); fi
    done
  else
    second_args+=("$arg")
  fi
done
[ "$paths" -gt 0 ] || second_args=("${SECOND_TESTS[@]}" "${second_args[@]}")

status=0
.venv/bin/python -m pytest -q -ra --durations=30 "$@" || status=$?
summary="$(.venv/bin/python -V): exit $status"
if [ "$second" = off ]; then
  summary+="; no second Python"
elif [ "$paths" -gt 0 ] && [ "$kept" = 0 ]; then
  summary+="; $("$second" -V): none of the paths is under ${SECOND_TESTS[*]}"
else
  echo "==> the probe's, the page's and the snapshot's tests on $("$second" -V)"
  second_status=0
  # no cache plugin: the first run's record of what failed stays the one pytest --lf reads
  PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" "$second" -m pytest -q -ra --durations=15 -p no:cacheprovider \
    "${second_args[@]}" || second_status=$?
  summary+="; $("$second" -V) (${SECOND_TESTS[*]}): exit $second_status"
  [ "$second_status" = 0 ] || status=$second_status
fi
echo "==> $summary"
exit "$status"
