#!/bin/sh
# Builds bench/compile/compile_bench against the build's libFuserCAPI.so
# and runs it on examples/*.mlir and bench/cuda/*.cu, writing
# bench/results/compile.md.
# usage: bench/compile/run.sh [BUILD_DIR] [LLVM_DIR] [extra compile_bench args]
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
LLVM_DIR=${2:-/usr/lib/llvm-22}
[ $# -ge 2 ] && shift 2 || shift $#
CC=${CC:-cc}
mkdir -p "$BUILD/bench"
BIN=$BUILD/bench/compile_bench
SRC=$ROOT/bench/compile/compile_bench.c
if [ ! -x "$BIN" ] || [ "$SRC" -nt "$BIN" ] || [ "$BUILD/lib/libFuserCAPI.so" -nt "$BIN" ]; then
  $CC -std=c11 -O2 -Wall -Wextra -I"$ROOT/include" -I"$BUILD/include" \
    -I"$LLVM_DIR/include" -I"$ROOT/runtime/include" "$SRC" -o "$BIN" \
    -L"$BUILD/lib" -lFuserCAPI -Wl,-rpath,"$BUILD/lib" -Wl,-rpath,"$LLVM_DIR/lib" -ldl -lm
fi
mkdir -p "$ROOT/bench/results"
cd "$ROOT"
exec "$BIN" --examples examples --cuda bench/cuda --out bench/results/compile.md "$@"
