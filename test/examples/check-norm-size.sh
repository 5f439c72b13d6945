#!/bin/sh
# check-norm-size.sh TMP OP DTYPE K: compiles a normalization OP (softmax,
# log_softmax, layer_norm, rms_norm, var_mean, layer_norm_backward,
# rms_norm_backward) over rows of K elements
# (K = ? for a length known at launch) of DTYPE and checks that ptxas
# assembles every kernel for sm_90 with 0 spill bytes and no stack.
set -e
tmp=$1 op=$2 dt=$3 k=$4
if [ "$k" = "?" ]; then rows="?"; tag=dyn; else rows=64; tag=$k; fi
x="tensor<${rows}x${k}x${dt}>" w="tensor<${k}x${dt}>" r="tensor<${rows}xf32>"
s="tensor<${rows}x1xf32>"
f=$tmp.$op.$dt.$tag.mlir
case $op in
softmax|log_softmax) cat > "$f" <<END
func.func @f(%x: $x) -> $x {
  %0 = fuser.$op %x dim = 1 : $x
  return %0 : $x
}
END
;;
layer_norm) cat > "$f" <<END
func.func @f(%x: $x, %w: $w, %b: $w) -> ($x, $s, $s) {
  %y:3 = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : ($x, $w, $w) -> ($x, $s, $s)
  return %y#0, %y#1, %y#2 : $x, $s, $s
}
END
;;
rms_norm) cat > "$f" <<END
func.func @f(%x: $x, %w: $w) -> $x {
  %0 = fuser.rms_norm %x weight %w dims = [1] eps = 1.0e-06 : ($x, $w) -> $x
  return %0 : $x
}
END
;;
layer_norm_backward)
  # from primitives, as examples/layer_norm_backward.mlir: the inner-outer
  # kernel (dx on the rows, dw and db across them) and its combine
  sed -e "s/2048x1024x/${rows}x${k}x/g" -e "s/2048x1x/${rows}x1x/g" \
      -e "s/tensor<1024x/tensor<${k}x/g" -e "s/xbf16>/x${dt}>/g" \
      "$(dirname "$0")/../../examples/layer_norm_backward.mlir" > "$f"
;;
rms_norm_backward)
  # from primitives, as examples/rms_norm_backward.mlir (dx on the rows, dw
  # across them)
  sed -e "s/2048x4096x/${rows}x${k}x/g" -e "s/2048x1x/${rows}x1x/g" \
      -e "s/tensor<4096x/tensor<${k}x/g" -e "s/xbf16>/x${dt}>/g" \
      "$(dirname "$0")/../../examples/rms_norm_backward.mlir" > "$f"
;;
var_mean) r="tensor<${rows}x${dt}>"; cat > "$f" <<END
func.func @f(%x: $x) -> ($r, $r) {
  %v, %m = fuser.var_mean %x dims = [1] : $x -> $r, $r
  return %v, %m : $r, $r
}
END
;;
esac
fuserc compile "$f" --chip sm_90 --emit ptx -o "$f.ptx"
report=$(ptxas --gpu-name sm_90 -v "$f.ptx" -o /dev/null 2>&1) || {
  echo "$op $dt K=$k: ptxas failed:" >&2; echo "$report" >&2; exit 1; }
echo "$report" | grep -q 'bytes spill' || { echo "$report" >&2; exit 1; }
if echo "$report" | grep -E '[1-9][0-9]* bytes (spill|stack)' >&2; then
  echo "$op $dt K=$k: spills or stack" >&2
  exit 1
fi
