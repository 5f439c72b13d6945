#!/bin/sh
# The GPU session rehearsed where fuser is built, without a GPU: every check
# case of a pack (`make gpu-pack`) run through check_runner on fuser's CPU
# emulator against the pack's expected outputs, the benchmark harness's
# ctypes bindings on the runtime's fake CUDA driver and fake cuBLASLt, and
# the harness's whole flow with PyTorch on the CPU and fuser on its emulator
# (sizes / 64; the matmul table at small shapes). Exits non-zero when any of
# them fails or a benchmark goes unmeasured, so a pack that would fail on
# the GPU machine for a reason of its own is caught here.
#
# usage: dry-run.sh PACK_DIR BUILD_DIR [LLVM_DIR]
set -u
PACK=$1
BUILD=$(cd "$2" && pwd)
LLVM=${3:-/usr/lib/llvm-22}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CC=${CC:-cc}
W=$PACK/dry-run
mkdir -p "$W"
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
fail=""

echo "== dry run 1/4: check_runner on the CPU emulator ($PACK/cases)"
$CC -std=c11 -O2 -DWITH_EMULATOR -I"$ROOT/include" -I"$BUILD/include" -I"$LLVM/include" \
  -I"$ROOT/runtime/include" -I"$ROOT/tools/fuserc" "$ROOT/bench/gpu/check_runner.c" \
  "$ROOT/tools/fuserc/npy.c" -L"$BUILD/lib" -lFuserCAPI -lfuser_runtime \
  -Wl,-rpath,"$BUILD/lib" -lm -o "$W/check_runner" || fail="$fail check_runner(build)"
if [ -x "$W/check_runner" ]; then
  "$W/check_runner" "$PACK/cases/cases.txt" --emulator --runs 1 --out "$W/check.md" |
    tail -3 || fail="$fail check_runner"
  grep -q ' 0 failed' "$W/check.md" 2>/dev/null || fail="$fail check_runner(cases)"
fi

echo "== dry run 2/4: harness.py's bindings on the fake CUDA driver (and fake cuBLASLt)"
python3 "$PACK/harness.py" --selftest --runtime "$BUILD/lib/libfuser_runtime.so" \
  --bundles "$PACK/bundles" --driver "$BUILD/lib/libfuser_fake_cuda.so" \
  --cublaslt "$BUILD/lib/libfuser_fake_cublaslt.so" > "$W/selftest.log" 2>&1 ||
  fail="$fail harness(selftest)"
tail -1 "$W/selftest.log"
[ "$(tail -1 "$W/selftest.log")" = "selftest: ok" ] || fail="$fail harness(selftest)"

echo "== dry run 3/4: harness.py with PyTorch on the CPU, fuser on its emulator"
if $PY -c 'import torch' 2>/dev/null; then
  $PY "$PACK/harness.py" --dry-run-cpu "$BUILD/lib/libFuserCAPI.so" \
    --runtime "$BUILD/lib/libfuser_runtime.so" --bundles "$PACK/bundles" --quick \
    --out "$W/gpu.md" > "$W/harness.log" 2>&1 || fail="$fail harness(dry-run-cpu)"
  grep -E "^\| (softmax|layer_norm|rms_norm|layer_norm_backward|rms_norm_backward|bias_gelu|silu|add_mul_chain) " "$W/gpu.md" | head -10
  grep -E '^\| (linear_bf16|mlp_block|linear_backward_bf16) ' "$W/gpu.md"
  # every benchmark measured: a row with fuser's time (the fourth column)
  for n in softmax layer_norm rms_norm layer_norm_backward rms_norm_backward \
           bias_gelu silu add_mul_chain \
           linear_bf16 mlp_block linear_backward_bf16; do
    grep -qE "^\| $n \| [^|]* \| [^|]* \| [0-9.]+ \|" "$W/gpu.md" 2>/dev/null ||
      fail="$fail harness($n not measured)"
  done
  # fuser's own column: a run that failed, or results that disagree with
  # the f32 computation (eager's and torch.compile's are PyTorch's business)
  if grep -E '^\| ' "$W/gpu.md" | grep -qE '\| failed: |fuser DIFFERS'; then
    grep -E '^\| ' "$W/gpu.md" | grep -E '\| failed: |fuser DIFFERS' | head -3
    fail="$fail harness(fuser failed or differs)"
  fi
else
  echo "   skipped: $PY has no torch"
fi

echo "== dry run 4/4: variants.py on fuser's emulator (every variant the default's bits)"
if $PY -c 'import torch' 2>/dev/null; then
  $PY "$PACK/variants.py" --dry-run-cpu "$BUILD/lib/libFuserCAPI.so" \
    --runtime "$BUILD/lib/libfuser_runtime.so" --bundles "$PACK/variants" --mb 2 \
    --out "$W/variants.md" > "$W/variants.log" 2>&1 || fail="$fail variants"
  echo "   $(grep -c '| yes |' "$W/variants.md" 2>/dev/null) variants give the default's bits"
  $PY "$PACK/variants.py" --dry-run-cpu "$BUILD/lib/libFuserCAPI.so" \
    --runtime "$BUILD/lib/libfuser_runtime.so" --bundles "$PACK/variants-io" --mb 2000 \
    --reordered-sums-ok --out "$W/variants-io.md" > "$W/variants-io.log" 2>&1 || fail="$fail variants-io"
  echo "   inner-outer: $(grep -cE '\| (yes|reordered) \|' "$W/variants-io.md" 2>/dev/null) variants agree with the default"
  $PY "$PACK/variants.py" --dry-run-cpu "$BUILD/lib/libFuserCAPI.so" \
    --runtime "$BUILD/lib/libfuser_runtime.so" --bundles "$PACK/variants-rt" --mb 2 \
    --out "$W/variants-rt.md" > "$W/variants-rt.log" 2>&1 || fail="$fail variants-rt"
  echo "   reductions and transposes: $(grep -c '| yes |' "$W/variants-rt.md" 2>/dev/null) variants give the default's bits"
else
  echo "   skipped: $PY has no torch"
fi

if [ -n "$fail" ]; then
  echo "dry-run.sh: FAILED:$fail (files in $W)" >&2
  exit 1
fi
echo "dry-run.sh: the pack's checks pass on the CPU emulator"
