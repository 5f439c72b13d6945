#!/bin/sh
# check-example.sh EXAMPLE.mlir TMP LAUNCHES [DIMS] [GEMMS]: compiles EXAMPLE,
# runs its plan on the fake CUDA driver ($FAKE_CUDA) and the fake cuBLASLt
# ($FAKE_CUBLASLT, so that no real library loads on a machine that has one)
# with the dynamic dims DIMS (comma-separated) and checks that exactly
# LAUNCHES kernels launch and GEMMS (default 0) matmuls run; then
# checks that ptxas assembles the PTX for sm_80 and sm_90 with 0 spill bytes
# and no stack. Guarded variants (index widths, misaligned buffers, row
# lengths) are kernels of the PTX that the plan does not launch for DIMS.
set -e
example=$1 tmp=$2 launches=$3 dims=$4 gemms=${5:-0}
name=$(basename "$example" .mlir)
fuserc compile "$example" -o "$tmp.$name.bundle"
fuser_rt_replay "$tmp.$name.bundle" ${dims:+--dims "$dims"} --driver "$FAKE_CUDA" \
  --cublaslt "$FAKE_CUBLASLT" --write-expect "$tmp.$name.log" > /dev/null
n=$(grep -c '^cuLaunchKernel' "$tmp.$name.log" || true)
if [ "$n" != "$launches" ]; then
  echo "$example: $n kernels launched, expected $launches" >&2
  cat "$tmp.$name.log" >&2
  exit 1
fi
g=$(grep -c '^cublasLtMatmul ' "$tmp.$name.log" || true)
if [ "$g" != "$gemms" ]; then
  echo "$example: $g matmuls ran, expected $gemms" >&2
  cat "$tmp.$name.log" >&2
  exit 1
fi
for chip in sm_80 sm_90; do
  ptx=$tmp.$name.$chip.ptx
  fuserc compile "$example" --chip $chip --emit ptx -o "$ptx"
  if ! report=$(ptxas --gpu-name $chip -v "$ptx" -o /dev/null 2>&1); then
    echo "$example ($chip): ptxas failed:" >&2
    echo "$report" >&2
    exit 1
  fi
  echo "$report" | grep -q 'bytes spill' || { echo "$report" >&2; exit 1; }
  if echo "$report" | grep -E '[1-9][0-9]* bytes (spill|stack)' >&2; then
    echo "$example ($chip): spills or stack" >&2
    exit 1
  fi
done
