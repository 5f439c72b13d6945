#!/bin/sh
# Nsight Compute profiles of a few of the pack's bundles at 256 MB of
# traffic, to say where a kernel's time goes (issue-bound or memory-bound,
# instructions per element, occupancy, stalls) where bench/results/gpu.md
# only says how long it took. Each bundle runs under `ncu --set detailed`
# through variants.py (one call, then its timing loop, of which ncu
# profiles the first launches of each of the fusion's kernels); the
# details page of each report lands in $OUT/profile-FUSION.txt.
#
# usage: profile.sh PACK_DIR [FUSION@VARIANT ...]
#   default: the f32 and bf16 bias_gelu, silu, add_mul_chain and the
#   layer_norm backward (the fusions furthest from the copy bandwidth).
# Needs ncu (Nsight Compute) and the runtime built by check.sh.
set -u
PACK=$(cd "${1:?usage: profile.sh PACK_DIR [FUSION@VARIANT ...]}" && pwd); shift
RES=${OUT:-$PACK/results}
mkdir -p "$RES"
B=${FUSER_PACK_BUILD:-$PACK/build}
PY=${PYTHON:-python3}
NCU=$(command -v ncu 2>/dev/null || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -z "$NCU" ]; then
  echo "profile.sh: no ncu (Nsight Compute) on this machine; nothing profiled" >&2
  exit 2
fi
echo "== $($NCU --version 2>/dev/null | tail -1)"
if [ ! -f "$B/libfuser_runtime.so" ]; then
  sh "$PACK/check.sh" "$PACK" --runs 1 >/dev/null 2>&1
fi
[ -f "$B/libfuser_runtime.so" ] || { echo "profile.sh: the runtime did not build (run check.sh)" >&2; exit 2; }
[ $# -gt 0 ] || set -- bias_gelu@base bias_gelu_bf16@base silu@base add_mul_chain@base layer_norm_backward@base
rc=0
for spec in "$@"; do
  name=${spec%@*}
  bundle=""
  for d in variants variants-io bundles; do
    [ -f "$PACK/$d/$spec.bundle" ] && bundle="$PACK/$d/$spec.bundle"
  done
  if [ -z "$bundle" ]; then
    echo "profile.sh: no bundle $spec in $PACK/variants, variants-io or bundles" >&2
    rc=1; continue
  fi
  tmp=$(mktemp -d)
  ln -s "$bundle" "$tmp/$name@base.bundle"
  echo "== $spec"
  timeout -k 5 ${FUSER_PROFILE_TIMEOUT:-120} "$NCU" --target-processes all \
    -k "regex:^${name}_[0-9]+\$" -c 2 --set detailed -f -o "$tmp/profile" \
    "$PY" "$PACK/variants.py" --runtime "$B/libfuser_runtime.so" --bundles "$tmp" \
    --mb 256 > "$RES/profile-$name.log" 2>&1 || { echo "   ncu failed: see profile-$name.log"; rc=1; }
  if [ -f "$tmp/profile.ncu-rep" ]; then
    "$NCU" --import "$tmp/profile.ncu-rep" --page details > "$RES/profile-$name.txt" 2>&1
    grep -E "^  [a-z_0-9]+_[0-9]+|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Executed Ipc Active|Registers Per Thread|Achieved Occupancy|Executed Instructions  " \
      "$RES/profile-$name.txt" | head -40
  fi
  rm -rf "$tmp"
done
exit $rc
