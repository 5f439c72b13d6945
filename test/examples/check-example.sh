#!/bin/sh
# check-example.sh EXAMPLE.mlir TMP ENTRIES: compiles EXAMPLE for sm_80 and
# sm_90, checks the PTX has ENTRIES kernels, and that ptxas assembles each
# with 0 spill bytes and no stack.
set -e
example=$1 tmp=$2 entries=$3
for chip in sm_80 sm_90; do
  ptx=$tmp.$(basename "$example" .mlir).$chip.ptx
  fuserc compile "$example" --chip $chip --emit ptx -o "$ptx"
  n=$(grep -c '^\.visible \.entry' "$ptx")
  if [ "$n" != "$entries" ]; then
    echo "$example ($chip): $n kernels, expected $entries" >&2
    exit 1
  fi
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
