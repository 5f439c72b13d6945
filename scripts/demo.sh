#!/bin/sh
# make demo: compile every example fusion, show what it became (kernels,
# launches, registers and spills when ptxas is found), and run it once on
# random inputs: on the GPU when there is one, else on the CPU emulator.
# Every example is tried; the exit status is 1 when any step of any example
# failed, and the last lines name them.
set -u
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
failed=""
count=0
for f in examples/*.mlir; do
  d=$(dims_of "$f")
  count=$((count + 1))
  echo "== $f"
  if ! "$fuserc" inspect "$f" ${d:+--dims "$d"}; then
    echo "  inspect: FAILED"
    failed="$failed $f(inspect)"
  fi
  if "$fuserc" run "$f" --random 1 --quiet ${d:+--dims "$d"}; then
    echo "  ran: ok"
  else
    echo "  run: FAILED"
    failed="$failed $f(run)"
  fi
  echo
done
# Sharded fusions (docs/sharding.md): one device's program, run on as many
# emulated devices as the grid has (each rank a thread).
for f in examples/sharded/*.mlir; do
  ranks=$(sed -n 's/^shard\.grid @[A-Za-z0-9_]*(shape = \([0-9]*\)).*/\1/p' "$f" | head -1)
  count=$((count + 1))
  echo "== $f (on $ranks devices)"
  if ! "$fuserc" inspect "$f"; then
    echo "  inspect: FAILED"
    failed="$failed $f(inspect)"
  fi
  if "$fuserc" run "$f" --device cpu --random 1 --quiet --ranks "$ranks"; then
    echo "  ran on $ranks ranks: ok"
  else
    echo "  run: FAILED"
    failed="$failed $f(run)"
  fi
  echo
done
if [ -n "$failed" ]; then
  echo "make demo: FAILED:$failed" >&2
  exit 1
fi
echo "make demo: all $count examples compiled, inspected and ran"
