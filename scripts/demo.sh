#!/bin/sh
# make demo: compile every example fusion, show what it became (kernels,
# launches, registers and spills when ptxas is found), and run it once on
# random inputs: on the GPU when there is one, else on the CPU emulator.
set -e
build=${1:-build}
fuserc=$build/bin/fuserc
# Sizes for the examples with dynamic dims: every dynamic dim of the
# arguments, in signature order.
dims_of() {
  case $(basename "$1" .mlir) in
  dynamic_dims) echo 512,1024,512,1024 ;;
  log_softmax) echo 256 ;;
  var_mean) echo 512 ;;
  *) echo "" ;;
  esac
}
for f in examples/*.mlir; do
  d=$(dims_of "$f")
  echo "== $f"
  "$fuserc" inspect "$f" ${d:+--dims "$d"}
  "$fuserc" run "$f" --random 1 --quiet ${d:+--dims "$d"} && echo "  ran: ok"
  echo
done
