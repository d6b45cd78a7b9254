#!/usr/bin/env bash
# The whole kornia survey under one torch version, shard by shard, resumable across machines and sessions.
#
#   bash example_docs/tools/survey_version.sh 2.9.1            # all eight shards that are not done yet
#   SHARDS="3 4" bash example_docs/tools/survey_version.sh 2.9.1
#
# Each shard K/8 runs in the version's own environment (scripts/torch-venv.sh). Its part starts from the
# committed 176-case sample of that version, so those cases are reused, not measured again. After every
# shard, all parts written so far are merged (--allow-incomplete) into the progress file
# example_docs/_data/versions/in-progress/kornia-torch-VERSION.json: commit it, and the next machine or
# session skips the shards it holds. When all eight are in, the whole snapshot is written to
# example_docs/_data/versions/kornia-torch-VERSION.json.
#
# Work files (parts, logs, --stats, /usr/bin/time's peaks) go to $KEXPORT_SURVEY_WORK/torch-VERSION
# (default ~/.cache/sphinx-kexport/survey); Kornia's tests come from KORNIA_SOURCE (see the kornia guide).
# PROGRESS_DIR names another folder for the progress file (a checkout the survey does not run from).
set -uo pipefail
VERSION="${1:?usage: bash example_docs/tools/survey_version.sh TORCH_VERSION (e.g. 2.9.1)}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
N=8
DATA="$ROOT/example_docs/_data/versions"
PROGRESS_DIR="${PROGRESS_DIR:-$DATA/in-progress}"
PROGRESS="$PROGRESS_DIR/kornia-torch-$VERSION.json"
WHOLE="$DATA/kornia-torch-$VERSION.json"
SAMPLE="$DATA/kornia-sample-torch-$VERSION.json"
WORK="${KEXPORT_SURVEY_WORK:-$HOME/.cache/sphinx-kexport/survey}/torch-$VERSION"
mkdir -p "$WORK" "$PROGRESS_DIR"

if [ -z "${KORNIA_SOURCE:-}" ] && [ ! -d "$ROOT/example_docs/_kornia/tests" ]; then
  echo "kornia's tests are needed (the survey's cases from tests): set KORNIA_SOURCE or see the kornia guide" >&2
  exit 2
fi
PY="$(bash "$ROOT/scripts/torch-venv.sh" "$VERSION" | tail -1)"
# inductor's kernels and the docstring examples' results outlive one shard (the next one reuses them)
export TORCHINDUCTOR_CACHE_DIR="${TORCHINDUCTOR_CACHE_DIR:-$WORK/inductor}"

seed() {
  # the sample, not the progress file: a shard's part keeps only its own cases' results, so the progress
  # file holds nothing about a shard not yet done, and the sample's results for it would be lost
  if [ -f "$SAMPLE" ]; then echo "$SAMPLE"; elif [ -f "$PROGRESS" ]; then echo "$PROGRESS"; fi
}

merge_parts() {
  local parts=("$WORK"/part-*.json)
  [ -e "${parts[0]}" ] || return 0
  # the progress file goes first: it holds the shards of earlier sessions; a part's own results win over it.
  # If the cases changed since it was written, it cannot be merged: the parts alone.
  local from=()
  [ -f "$PROGRESS" ] && from+=("$PROGRESS")
  for sources in "${from[*]} ${parts[*]}" "${parts[*]}"; do
    # shellcheck disable=SC2086  # the paths have no spaces (the work folder is ours)
    if "$PY" -m sphinx_kexport.probe merge "$WORK/merged.json" $sources >/dev/null 2>&1; then
      mv "$WORK/merged.json" "$WHOLE" && rm -f "$PROGRESS"
      echo "all $N shards are in: $WHOLE"
      return 0
    fi
    # shellcheck disable=SC2086
    if "$PY" -m sphinx_kexport.probe merge --allow-incomplete "$WORK/merged.json" $sources >/dev/null; then
      mv "$WORK/merged.json" "$PROGRESS"
      echo "progress so far: $PROGRESS (commit it)"
      return 0
    fi
  done
  return 1
}

# a shard whose cases all have results in the progress file is done: every N-th case in registration order
shard_known() {
  [ -f "$PROGRESS" ] && python3 - "$PROGRESS" "$1" "$N" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1], encoding="utf-8"))["cases"]
k, n = int(sys.argv[2]), int(sys.argv[3])
sys.exit(0 if all(c["results"] for c in cases[k - 1::n]) else 1)
PY
}

for K in ${SHARDS:-$(seq 1 $N)}; do
  part="$WORK/part-$K.json"
  if [ -f "$part.done" ] || shard_known "$K"; then echo "shard $K/$N: done before"; continue; fi
  from="$(seed)"
  [ -f "$part" ] || { [ -n "$from" ] && cp "$from" "$part"; }
  echo "=== shard $K/$N under torch $VERSION, from ${from:-nothing}: $(date -u +%FT%TZ)"
  /usr/bin/time -v "$PY" -m sphinx_kexport.probe --shard "$K/$N" --out "$part" --jobs 2 \
    --stats "$WORK/stats-$K.json" 2> "$WORK/time-$K.txt" | tee "$WORK/log-$K.txt" | tail -3
  rc=${PIPESTATUS[0]}
  echo "=== shard $K/$N exit status $rc: $(date -u +%FT%TZ) ($(grep -h 'Maximum resident' "$WORK/time-$K.txt"))"
  # 0: measured; 4: measured, and some cases failed eagerly (kornia has two). 3: the probe could not run, or
  # could not build a case: rerun resumes it
  if [ "$rc" = 0 ] || [ "$rc" = 4 ]; then touch "$part.done"; merge_parts; fi
done
