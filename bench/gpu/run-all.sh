#!/bin/sh
# The whole GPU session in one command: check.sh (bundles against expected
# outputs, pass/fail with timings), then harness.py (fuser vs PyTorch eager
# vs torch.compile: memory-bound fusions from 1 MB to 1 GB, then the matmul
# table in TFLOP/s, within one budget), then variants.py (schedule variants
# of the pointwise fusions against the default schedule). Prints the tables;
# writes gpu-check.md, gpu.md, variants.md, variants-io.md and variants-rt.md to $OUT (when set) or
# PACK/results. Planned to finish in about 5 minutes and never more than 9
# (each stage has a timeout; on an H200 the whole ran in under 2).
#
# usage: run-all.sh [PACK_DIR] [harness options, e.g. --quick]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ] && [ -d "$1" ]; then
  PACK=$(cd "$1" && pwd); shift
elif [ -f "$HERE/cases/cases.txt" ]; then
  PACK=$HERE
else
  PACK=$(cd "$HERE/../.." && pwd)/build/gpu-pack
fi
[ -f "$PACK/cases/cases.txt" ] || { echo "run-all.sh: no GPU pack at $PACK (make gpu-pack)" >&2; exit 2; }
RES=${OUT:-$PACK/results}
mkdir -p "$RES"
export OUT="$RES"
B=${FUSER_PACK_BUILD:-$PACK/build}
mkdir -p "$B" 2>/dev/null && [ -w "$B" ] || B=$(mktemp -d)
export FUSER_PACK_BUILD="$B"
T0=$(date +%s)
PY=${PYTHON:-python3}

echo "######## 1/3 check.sh"
timeout -k 5 ${FUSER_CHECK_TIMEOUT:-150} sh "$PACK/check.sh" "$PACK"
check_rc=$?

echo
echo "######## 2/3 harness.py (after $(( $(date +%s) - T0 )) s)"
left=$(( ${FUSER_TOTAL_BUDGET:-460} - ($(date +%s) - T0) ))
[ $left -lt 60 ] && left=60
budget=$(( left - 90 )); [ $budget -lt 30 ] && budget=30
timeout -k 10 $left $PY "$PACK/harness.py" --runtime "$B/libfuser_runtime.so" \
  --bundles "$PACK/bundles" --out "$RES/gpu.md" --budget $budget "$@" 2>"$RES/harness.stderr"
bench_rc=$?
[ $bench_rc = 0 ] || { echo "harness.py failed ($bench_rc); its stderr:"; tail -30 "$RES/harness.stderr"; }

echo
echo "######## 3/3 variants.py (after $(( $(date +%s) - T0 )) s)"
timeout -k 5 ${FUSER_VARIANTS_TIMEOUT:-150} $PY "$PACK/variants.py" --runtime "$B/libfuser_runtime.so" \
  --bundles "$PACK/variants" --mb 16,64,256,1024 --out "$RES/variants.md" 2>"$RES/variants.stderr"
var_rc=$?
[ $var_rc = 0 ] || { echo "variants.py failed ($var_rc); its stderr:"; tail -30 "$RES/variants.stderr"; }
echo "######## 3/3 variants.py, inner-outer (after $(( $(date +%s) - T0 )) s)"
timeout -k 5 ${FUSER_VARIANTS_TIMEOUT:-150} $PY "$PACK/variants.py" --runtime "$B/libfuser_runtime.so" \
  --bundles "$PACK/variants-io" --mb 1,4,16,64,256,1024 --reordered-sums-ok \
  --out "$RES/variants-io.md" 2>"$RES/variants-io.stderr"
io_rc=$?
[ $io_rc = 0 ] || { echo "variants.py (inner-outer) failed ($io_rc); its stderr:"; tail -30 "$RES/variants-io.stderr"; }
[ $var_rc = 0 ] && var_rc=$io_rc
echo "######## 3/3 variants.py, reductions and transposes (after $(( $(date +%s) - T0 )) s)"
timeout -k 5 ${FUSER_VARIANTS_TIMEOUT:-150} $PY "$PACK/variants.py" --runtime "$B/libfuser_runtime.so" \
  --bundles "$PACK/variants-rt" --mb 16,64,256,1024 \
  --out "$RES/variants-rt.md" 2>"$RES/variants-rt.stderr"
rt_rc=$?
[ $rt_rc = 0 ] || { echo "variants.py (reductions, transposes) failed ($rt_rc); its stderr:"; tail -30 "$RES/variants-rt.stderr"; }
[ $var_rc = 0 ] && var_rc=$rt_rc

echo
echo "######## summary after $(( $(date +%s) - T0 )) s: check.sh rc=$check_rc, harness.py rc=$bench_rc, variants.py rc=$var_rc"
echo "######## check (all rows in $RES/gpu-check.md; failures and the count here)"
grep -E '^\| case|FAIL|passed, ' "$RES/gpu-check.md" 2>/dev/null
echo
echo "######## benchmark (from $RES/gpu.md)"
[ -f "$RES/gpu.md" ] && sed -n '/^| benchmark/,$p' "$RES/gpu.md" | sed '/^## Method/,$d'
[ $check_rc = 0 ] && [ $bench_rc = 0 ] && [ $var_rc = 0 ]
