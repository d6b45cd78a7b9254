#!/usr/bin/env bash
# Some of the kornia example's case modules probed on CPU and on CUDA with one torch, on a machine with a GPU.
#
#   OUT_DIR=cuda-run STOP_AFTER=7m bash example_docs/tools/survey_devices.sh \
#       example_docs/cases/cases_color.py example_docs/cases/cases_filters.py
#
# Both devices in one run and one environment, so that a cell that differs between CPU and CUDA differs
# because of the device, not because of the torch version. STOP_AFTER (the probe's --stop-after: 600, 7m)
# suits a machine lent for a few minutes: when it comes, the cases still running are stopped and
# OUT_DIR/kornia-cpu-cuda.json is written with what is finished (complete: false, the rest listed as
# missing); the same command again, on the same machine, measures the rest.
#
# PY: the python to run (default python3); JOBS: workers (default: CPUs less two, for the parent and the
# inventory); DEVICES (default "cpu cuda"); PROBE_ARGS: more of the probe's flags (say "--only kornia.color").
# Kornia's tests come from example_docs/_kornia or KORNIA_SOURCE, as for every survey. The log and --stats
# go to OUT_DIR too. Exit status: the probe's (5: STOP_AFTER came first).
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: OUT_DIR=DIR [STOP_AFTER=DURATION] bash $0 CASE_MODULE..." >&2; exit 2; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
PY="${PY:-python3}"
OUT_DIR="${OUT_DIR:?set OUT_DIR to the folder for the snapshot, the log and the statistics}"
CPUS="$(nproc)"
JOBS="${JOBS:-$(( CPUS > 3 ? CPUS - 2 : 1 ))}"
DEVICES="${DEVICES:-cpu cuda}"
mkdir -p "$OUT_DIR"
LOG="$OUT_DIR/log.txt"
ARGS=()
for module in "$@"; do ARGS+=(--cases "$module"); done
for device in $DEVICES; do ARGS+=(--device "$device"); done
[ -n "${STOP_AFTER:-}" ] && ARGS+=(--stop-after "$STOP_AFTER")
# shellcheck disable=SC2206  # PROBE_ARGS is split on purpose
ARGS+=(${PROBE_ARGS:-})

{
  echo "=== $(date -u +%FT%TZ): $# case modules on $DEVICES, $JOBS workers of $CPUS CPUs, stop after ${STOP_AFTER:-no limit}"
  "$PY" -c "import sys, torch, onnxruntime, kornia
print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda,
      'gpu', torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)
print('kornia', kornia.__version__, 'onnxruntime', onnxruntime.__version__, onnxruntime.get_available_providers())"
} 2>&1 | tee -a "$LOG"
[[ " $DEVICES " != *" cuda "* ]] || "$PY" -c "import torch, sys; sys.exit(not torch.cuda.is_available())" || {
  echo "torch sees no CUDA device here: this script is for a machine with a GPU" | tee -a "$LOG" >&2; exit 3; }

began=$(date +%s)
"$PY" -m sphinx_kexport.probe "${ARGS[@]}" --jobs "$JOBS" --out "$OUT_DIR/kornia-cpu-cuda.json" \
  --stats "$OUT_DIR/stats.json" >> "$LOG" 2>&1
rc=$?
echo "=== exit status $rc after $(( $(date +%s) - began ))s: $OUT_DIR/kornia-cpu-cuda.json" | tee -a "$LOG"
exit "$rc"
