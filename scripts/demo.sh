#!/bin/sh
# make demo: verify and canonicalize every example fusion with fuser-opt.
set -e
build=${1:-build}
for f in examples/*.mlir; do
  echo "== $f"
  "$build/bin/fuser-opt" --fuser-decompose --canonicalize "$f"
done
