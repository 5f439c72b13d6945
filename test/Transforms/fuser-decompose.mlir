// RUN: fuser-opt %s -split-input-file --fuser-decompose | FileCheck %s

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xbf16>)
// CHECK: %[[XF:.*]] = fuser.cast %[[X]] : tensor<4x?xbf16> to tensor<4x?xf32>
// CHECK: %[[MAX:.*]] = fuser.max %[[XF]] dims = [1] : tensor<4x?xf32> -> tensor<4xf32>
// CHECK: %[[MAXB:.*]] = fuser.broadcast %[[MAX]] dims = [0] : tensor<4xf32> -> tensor<4x?xf32>
// CHECK: %[[SH:.*]] = fuser.sub %[[XF]], %[[MAXB]] : tensor<4x?xf32>
// CHECK: %[[E:.*]] = fuser.exp %[[SH]] : tensor<4x?xf32>
// CHECK: %[[S:.*]] = fuser.sum %[[E]] dims = [1] : tensor<4x?xf32> -> tensor<4xf32>
// CHECK: %[[SB:.*]] = fuser.broadcast %[[S]] dims = [0] : tensor<4xf32> -> tensor<4x?xf32>
// CHECK: %[[Y:.*]] = fuser.div %[[E]], %[[SB]] : tensor<4x?xf32>
// CHECK: %[[R:.*]] = fuser.cast %[[Y]] : tensor<4x?xf32> to tensor<4x?xbf16>
// CHECK: return %[[R]]
func.func @softmax(%x: tensor<4x?xbf16>) -> tensor<4x?xbf16> {
  %0 = fuser.softmax %x dim = 1 : tensor<4x?xbf16>
  return %0 : tensor<4x?xbf16>
}

// -----

// f32 input: no casts; the reduction runs along dim 0.
// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NOT: fuser.cast
// CHECK: %[[MAX:.*]] = fuser.max %[[X]] dims = [0] : tensor<8x16xf32> -> tensor<16xf32>
// CHECK: %[[MAXB:.*]] = fuser.broadcast %[[MAX]] dims = [1] : tensor<16xf32> -> tensor<8x16xf32>
// CHECK: %[[SH:.*]] = fuser.sub %[[X]], %[[MAXB]]
// CHECK: %[[E:.*]] = fuser.exp %[[SH]]
// CHECK: %[[S:.*]] = fuser.sum %[[E]] dims = [0]
// CHECK: %[[L:.*]] = fuser.log %[[S]] : tensor<16xf32>
// CHECK: %[[LB:.*]] = fuser.broadcast %[[L]] dims = [1]
// CHECK: %[[Y:.*]] = fuser.sub %[[SH]], %[[LB]]
// CHECK: return %[[Y]]
func.func @log_softmax(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = fuser.log_softmax %x dim = 0 : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<?x1024xbf16>, %[[W:.*]]: tensor<1024xbf16>, %[[B:.*]]: tensor<1024xbf16>)
// CHECK-DAG: %[[EPS:.*]] = fuser.constant 9.99999974E-6 : tensor<f32>
// CHECK-DAG: %[[XF:.*]] = fuser.cast %[[X]] : tensor<?x1024xbf16> to tensor<?x1024xf32>
// CHECK: %[[MEAN:.*]] = fuser.mean %[[XF]] dims = [1] keepdim = true : tensor<?x1024xf32> -> tensor<?x1xf32>
// CHECK: %[[MB:.*]] = fuser.broadcast %[[MEAN]] dims = [0, 1] : tensor<?x1xf32> -> tensor<?x1024xf32>
// CHECK: %[[C:.*]] = fuser.sub %[[XF]], %[[MB]]
// CHECK: %[[SQ:.*]] = fuser.mul %[[C]], %[[C]]
// CHECK: %[[VAR:.*]] = fuser.mean %[[SQ]] dims = [1] keepdim = true : tensor<?x1024xf32> -> tensor<?x1xf32>
// CHECK: %[[VE:.*]] = fuser.add %[[VAR]], %[[EPS]] : tensor<?x1xf32>, tensor<f32>
// CHECK: %[[RSTD:.*]] = fuser.rsqrt %[[VE]] : tensor<?x1xf32>
// CHECK: %[[RB:.*]] = fuser.broadcast %[[RSTD]] dims = [0, 1] : tensor<?x1xf32> -> tensor<?x1024xf32>
// CHECK: %[[N:.*]] = fuser.mul %[[C]], %[[RB]]
// CHECK: %[[WF:.*]] = fuser.cast %[[W]] : tensor<1024xbf16> to tensor<1024xf32>
// CHECK: %[[WB:.*]] = fuser.broadcast %[[WF]] dims = [1] : tensor<1024xf32> -> tensor<?x1024xf32>
// CHECK: %[[NW:.*]] = fuser.mul %[[N]], %[[WB]]
// CHECK: %[[BF:.*]] = fuser.cast %[[B]]
// CHECK: %[[BB:.*]] = fuser.broadcast %[[BF]] dims = [1]
// CHECK: %[[Y:.*]] = fuser.add %[[NW]], %[[BB]]
// CHECK: %[[YB:.*]] = fuser.cast %[[Y]] : tensor<?x1024xf32> to tensor<?x1024xbf16>
// CHECK: return %[[YB]], %[[MEAN]], %[[RSTD]]
func.func @layer_norm(%x: tensor<?x1024xbf16>, %w: tensor<1024xbf16>, %b: tensor<1024xbf16>)
    -> (tensor<?x1024xbf16>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %y:3 = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<?x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
      -> (tensor<?x1024xbf16>, tensor<?x1xf32>, tensor<?x1xf32>)
  return %y#0, %y#1, %y#2 : tensor<?x1024xbf16>, tensor<?x1xf32>, tensor<?x1xf32>
}

// -----

// Without weight and bias, over two trailing dims.
// CHECK-LABEL: func.func @layer_norm_plain
// CHECK: fuser.mean %{{.*}} dims = [1, 2] keepdim = true : tensor<2x3x4xf64> -> tensor<2x1x1xf64>
// CHECK-NOT: fuser.cast
// CHECK: fuser.mul
// CHECK: fuser.mean %{{.*}} dims = [1, 2] keepdim = true : tensor<2x3x4xf64> -> tensor<2x1x1xf64>
// CHECK: fuser.mul
// CHECK-NOT: fuser.mul
// CHECK-NOT: fuser.add {{.*}}tensor<2x3x4xf64>
// CHECK: return
func.func @layer_norm_plain(%x: tensor<2x3x4xf64>) -> tensor<2x3x4xf64> {
  %y:3 = fuser.layer_norm %x dims = [1, 2] eps = 1.0e-05
      : (tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<2x1x1xf64>, tensor<2x1x1xf64>)
  return %y#0 : tensor<2x3x4xf64>
}

// -----

// rms_norm multiplies by the weight in f32 and rounds once to the input type,
// as PyTorch's fused rms_norm (its older composite rounded before the weight).
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf16>, %[[W:.*]]: tensor<64xf16>)
// CHECK-DAG: %[[EPS:.*]] = fuser.constant 9.99999997E-7 : tensor<f32>
// CHECK-DAG: %[[XF:.*]] = fuser.cast %[[X]] : tensor<8x64xf16> to tensor<8x64xf32>
// CHECK: %[[SQ:.*]] = fuser.mul %[[XF]], %[[XF]]
// CHECK: %[[MS:.*]] = fuser.mean %[[SQ]] dims = [1] keepdim = true : tensor<8x64xf32> -> tensor<8x1xf32>
// CHECK: %[[ME:.*]] = fuser.add %[[MS]], %[[EPS]]
// CHECK: %[[R:.*]] = fuser.rsqrt %[[ME]]
// CHECK: %[[RB:.*]] = fuser.broadcast %[[R]] dims = [0, 1]
// CHECK: %[[N:.*]] = fuser.mul %[[XF]], %[[RB]]
// CHECK: %[[WF:.*]] = fuser.cast %[[W]] : tensor<64xf16> to tensor<64xf32>
// CHECK: %[[WB:.*]] = fuser.broadcast %[[WF]] dims = [1] : tensor<64xf32> -> tensor<8x64xf32>
// CHECK: %[[NW:.*]] = fuser.mul %[[N]], %[[WB]] : tensor<8x64xf32>
// CHECK: %[[Y:.*]] = fuser.cast %[[NW]] : tensor<8x64xf32> to tensor<8x64xf16>
// CHECK: return %[[Y]]
func.func @rms_norm(%x: tensor<8x64xf16>, %w: tensor<64xf16>) -> tensor<8x64xf16> {
  %0 = fuser.rms_norm %x weight %w dims = [1] eps = 1.0e-06 : (tensor<8x64xf16>, tensor<64xf16>) -> tensor<8x64xf16>
  return %0 : tensor<8x64xf16>
}

// -----

// dropout: the f32 uniform of fuser.rand at each element (its shape from x)
// below 1 - p keeps it; y = (x * keep) * (1 / (1 - p)), all +0 when p is 1
// (CUDA's short cut: not inf * 0); in f32 for bf16, rounded once.
// CHECK-LABEL: func.func @dropout
// CHECK: %[[XF:.*]] = fuser.cast %arg0 : tensor<8x?xbf16> to tensor<8x?xf32>
// CHECK: %[[U:.*]] = fuser.rand %arg2, %arg3 like %arg0 : tensor<8x?xbf16> : tensor<8x?xf32>
// CHECK: %[[KP:.*]] = fuser.sub %{{.*}}, %arg1 : tensor<f32>
// CHECK: %[[M:.*]] = fuser.lt %[[U]], %[[KP]] : tensor<8x?xf32>, tensor<f32>
// CHECK: %[[INV:.*]] = fuser.div %{{.*}}, %[[KP]]
// CHECK: %[[NONE:.*]] = fuser.eq %[[KP]], %[[ZERO:.*]] : tensor<f32>
// CHECK: %[[MF:.*]] = fuser.cast %[[M]] : tensor<8x?xi1> to tensor<8x?xf32>
// CHECK: %[[K:.*]] = fuser.mul %[[XF]], %[[MF]]
// CHECK: %[[S:.*]] = fuser.mul %[[K]], %[[INV]]
// CHECK: %[[Y:.*]] = fuser.where %[[NONE]], %[[ZERO]], %[[S]]
// CHECK: %[[YB:.*]] = fuser.cast %[[Y]] : tensor<8x?xf32> to tensor<8x?xbf16>
// CHECK: return %[[YB]], %[[M]]
func.func @dropout(%x: tensor<8x?xbf16>, %p: tensor<f32>, %s: tensor<i64>, %o: tensor<i64>)
    -> (tensor<8x?xbf16>, tensor<8x?xi1>) {
  %y, %m = fuser.dropout %x, %p, %s, %o : tensor<8x?xbf16>, tensor<f32> -> tensor<8x?xbf16>, tensor<8x?xi1>
  return %y, %m : tensor<8x?xbf16>, tensor<8x?xi1>
}

// -----

// quantize, f32 scales (torchao): the per-row amax (at least 0: an empty
// row's max is -inf), fmax / max(amax, 1e-12) in f64 rounded to f32, a
// saturating cast of x * scale whose NaNs are first the positive one.
// CHECK-LABEL: func.func @quantize_row
// CHECK-DAG: %[[NAN:.*]] = fuser.constant nan : tensor<f32>
// CHECK-DAG: %[[FMAX:.*]] = fuser.constant 4.480000e+02 : tensor<f64>
// CHECK-DAG: %[[TINY:.*]] = fuser.constant 9.9999999999999998E-13 : tensor<f64>
// CHECK-DAG: %[[ZERO:.*]] = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK: %[[XF:.*]] = fuser.cast %{{.*}} : tensor<?x256xbf16> to tensor<?x256xf32>
// CHECK: %[[ABS:.*]] = fuser.abs %[[XF]]
// CHECK: %[[MAX:.*]] = fuser.max %[[ABS]] dims = [1] keepdim = true : tensor<?x256xf32> -> tensor<?x1xf32>
// CHECK: %[[AMAX:.*]] = fuser.maximum %[[MAX]], %[[ZERO]]
// CHECK: %[[A64:.*]] = fuser.cast %[[AMAX]] : tensor<?x1xf32> to tensor<?x1xf64>
// CHECK: %[[CL:.*]] = fuser.maximum %[[A64]], %[[TINY]]
// CHECK: %[[S64:.*]] = fuser.div %[[FMAX]], %[[CL]]
// CHECK: %[[S:.*]] = fuser.cast %[[S64]] : tensor<?x1xf64> to tensor<?x1xf32>
// CHECK: %[[SB:.*]] = fuser.broadcast %[[S]] dims = [0, 1] : tensor<?x1xf32> -> tensor<?x256xf32>
// CHECK: %[[M:.*]] = fuser.mul %[[XF]], %[[SB]]
// CHECK: %[[ISNAN:.*]] = fuser.isnan %[[M]]
// CHECK: %[[Y:.*]] = fuser.where %[[ISNAN]], %[[NAN]], %[[M]]
// CHECK: %[[Q:.*]] = fuser.cast %[[Y]] saturate : tensor<?x256xf32> to tensor<?x256xf8E4M3FN>
// CHECK: return %[[Q]], %[[S]], %[[AMAX]]
func.func @quantize_row(%x: tensor<?x256xbf16>) -> (tensor<?x256xf8E4M3FN>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %q, %s, %a = fuser.quantize %x row : tensor<?x256xbf16> -> (tensor<?x256xf8E4M3FN>, tensor<?x1xf32>, tensor<?x1xf32>)
  return %q, %s, %a : tensor<?x256xf8E4M3FN>, tensor<?x1xf32>, tensor<?x1xf32>
}

// -----

// quantize, e8m0 scales (OCP MX): blocks of 32 as a third dim; the shared
// exponent from amax's exponent field (minus 15 for e5m2), clamped; x times
// 2^-exponent; the scale 2^exponent as e8m0, NaN where amax is NaN.
// CHECK-LABEL: func.func @quantize_mx
// CHECK-DAG: %[[C15:.*]] = fuser.constant 15 : tensor<i32>
// CHECK: %[[G:.*]] = fuser.reshape %{{.*}} : tensor<4x256xf32> -> tensor<4x8x32xf32>
// CHECK: %[[MAX:.*]] = fuser.max %{{.*}} dims = [2] keepdim = true : tensor<4x8x32xf32> -> tensor<4x8x1xf32>
// CHECK: %[[AMAX:.*]] = fuser.maximum %[[MAX]]
// CHECK: fuser.bitcast %[[AMAX]] : tensor<4x8x1xf32> to tensor<4x8x1xi32>
// CHECK: fuser.sub %{{.*}}, %[[C15]]
// CHECK: %[[CODE:.*]] = fuser.clamp
// CHECK: %[[NAN:.*]] = fuser.isnan %[[AMAX]]
// CHECK: %[[E8:.*]] = fuser.cast %{{.*}} : tensor<4x8x1xf32> to tensor<4x8x1xf8E8M0FNU>
// CHECK: fuser.mul %[[G]], %{{.*}} : tensor<4x8x32xf32>
// CHECK: fuser.where
// CHECK: %[[Q:.*]] = fuser.cast %{{.*}} saturate : tensor<4x8x32xf32> to tensor<4x8x32xf8E5M2>
// CHECK: %[[QR:.*]] = fuser.reshape %[[Q]] : tensor<4x8x32xf8E5M2> -> tensor<4x256xf8E5M2>
// CHECK: %[[SR:.*]] = fuser.reshape %[[E8]] : tensor<4x8x1xf8E8M0FNU> -> tensor<4x8xf8E8M0FNU>
// CHECK: %[[AR:.*]] = fuser.reshape %[[AMAX]] : tensor<4x8x1xf32> -> tensor<4x8xf32>
// CHECK: return %[[QR]], %[[SR]], %[[AR]]
func.func @quantize_mx(%x: tensor<4x256xf32>) -> (tensor<4x256xf8E5M2>, tensor<4x8xf8E8M0FNU>, tensor<4x8xf32>) {
  %q, %s, %a = fuser.quantize %x block 32 : tensor<4x256xf32> -> (tensor<4x256xf8E5M2>, tensor<4x8xf8E8M0FNU>, tensor<4x8xf32>)
  return %q, %s, %a : tensor<4x256xf8E5M2>, tensor<4x8xf8E8M0FNU>, tensor<4x8xf32>
}

// -----

// scaled_cast: the amax over the dims the scale is shared along.
// CHECK-LABEL: func.func @scaled_cast
// CHECK: %[[ABS:.*]] = fuser.abs %{{.*}} : tensor<8x64xf32>
// CHECK: %[[MAX:.*]] = fuser.max %[[ABS]] dims = [1] keepdim = true : tensor<8x64xf32> -> tensor<8x1xf32>
// CHECK: %[[AMAX:.*]] = fuser.maximum %[[MAX]]
// CHECK: %[[S:.*]] = fuser.broadcast %{{.*}} dims = [0, 1] : tensor<8x1xf32> -> tensor<8x64xf32>
// CHECK: %[[M:.*]] = fuser.mul %{{.*}}, %[[S]]
// CHECK: %[[Y:.*]] = fuser.where
// CHECK: %[[Q:.*]] = fuser.cast %[[Y]] saturate : tensor<8x64xf32> to tensor<8x64xf8E4M3FN>
// CHECK: return %[[Q]], %[[AMAX]]
func.func @scaled_cast(%x: tensor<8x64xf16>, %s: tensor<8x1xf32>) -> (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>) {
  %q, %a = fuser.scaled_cast %x, %s : (tensor<8x64xf16>, tensor<8x1xf32>) -> (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>)
  return %q, %a : tensor<8x64xf8E4M3FN>, tensor<8x1xf32>
}

// -----

// quantize of a rank-0 tensor: one group, its amax |x| (no reduction).
// CHECK-LABEL: func.func @quantize_rank0
// CHECK: %[[A:.*]] = fuser.abs %{{.*}} : tensor<f32>
// CHECK-NOT: fuser.max {{.*}}dims
// CHECK: return %{{.*}}, %{{.*}}, %[[A]]
func.func @quantize_rank0(%x: tensor<f32>) -> (tensor<f8E4M3FN>, tensor<f32>, tensor<f32>) {
  %q, %s, %a = fuser.quantize %x tensor : tensor<f32> -> (tensor<f8E4M3FN>, tensor<f32>, tensor<f32>)
  return %q, %s, %a : tensor<f8E4M3FN>, tensor<f32>, tensor<f32>
}

// -----

// A matmul operand that has some of the result's batch dims but not all is
// broadcast to all of them (the GEMM reads each operand with one batch
// stride); one with all or none of them is left alone.
// CHECK-LABEL: func.func @matmul_batch_broadcast
// CHECK: %[[A:.*]] = fuser.broadcast %arg0 dims = [0, 1, 2, 3] : tensor<2x1x3x4xf32> -> tensor<2x5x3x4xf32>
// CHECK: %[[B:.*]] = fuser.broadcast %arg1 dims = [0, 1, 2, 3] : tensor<1x5x4x2xf32> -> tensor<2x5x4x2xf32>
// CHECK: fuser.matmul %[[A]], %[[B]] : (tensor<2x5x3x4xf32>, tensor<2x5x4x2xf32>) -> tensor<2x5x3x2xf32>
// CHECK: fuser.matmul %arg2, %arg1 : (tensor<3x4xf32>, tensor<1x5x4x2xf32>) -> tensor<1x5x3x2xf32>
func.func @matmul_batch_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<1x5x4x2xf32>, %c: tensor<3x4xf32>)
    -> (tensor<2x5x3x2xf32>, tensor<1x5x3x2xf32>) {
  %0 = fuser.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<1x5x4x2xf32>) -> tensor<2x5x3x2xf32>
  %1 = fuser.matmul %c, %b : (tensor<3x4xf32>, tensor<1x5x4x2xf32>) -> tensor<1x5x3x2xf32>
  return %0, %1 : tensor<2x5x3x2xf32>, tensor<1x5x3x2xf32>
}

// -----

// pow with a constant exponent as PyTorch's pow(Tensor, Scalar) computes
// it: ** 2 -> x * x, ** 3 -> (x * x) * x, ** -2 -> 1 / (x * x), ** 0.5 ->
// sqrt, ** -0.5 -> rsqrt, ** -1 -> reciprocal, ** 1 -> x; any other
// exponent, and one that is not a constant, stays pow.
// CHECK-LABEL: func.func @constant_pow
// CHECK-SAME: (%[[X:.*]]: tensor<8xbf16>, %[[E:.*]]: tensor<f32>, %[[F:.*]]: tensor<8xf32>)
// CHECK-DAG: %[[ONE:.*]] = fuser.constant 1.000000e+00 : tensor<bf16>
// CHECK-DAG: %[[C25:.*]] = fuser.constant 2.500000e+00 : tensor<bf16>
// CHECK: %[[SQ:.*]] = fuser.mul %[[X]], %[[X]] : tensor<8xbf16>
// CHECK: %[[S2:.*]] = fuser.mul %[[X]], %[[X]] : tensor<8xbf16>
// CHECK: %[[CU:.*]] = fuser.mul %[[S2]], %[[X]] : tensor<8xbf16>
// CHECK: %[[S3:.*]] = fuser.mul %[[X]], %[[X]] : tensor<8xbf16>
// CHECK: %[[IS:.*]] = fuser.div %[[ONE]], %[[S3]] : tensor<bf16>, tensor<8xbf16>
// CHECK: %[[RT:.*]] = fuser.sqrt %[[X]] : tensor<8xbf16>
// CHECK: %[[RS:.*]] = fuser.rsqrt %[[X]] : tensor<8xbf16>
// CHECK: %[[RC:.*]] = fuser.reciprocal %[[X]] : tensor<8xbf16>
// CHECK: %[[P3:.*]] = fuser.pow %[[X]], %[[C25]] : tensor<8xbf16>, tensor<bf16>
// CHECK: %[[PE:.*]] = fuser.pow %[[F]], %[[E]] : tensor<8xf32>, tensor<f32>
// CHECK: return %[[SQ]], %[[CU]], %[[IS]], %[[RT]], %[[RS]], %[[RC]], %[[X]], %[[P3]], %[[PE]]
func.func @constant_pow(%x: tensor<8xbf16>, %e: tensor<f32>, %f: tensor<8xf32>)
    -> (tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>,
        tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>) {
  %c2 = fuser.constant 2.0 : tensor<bf16>
  %c3 = fuser.constant 3.0 : tensor<bf16>
  %cm2 = fuser.constant -2.0 : tensor<bf16>
  %ch = fuser.constant 0.5 : tensor<bf16>
  %cmh = fuser.constant -0.5 : tensor<bf16>
  %cm1 = fuser.constant -1.0 : tensor<bf16>
  %c1 = fuser.constant 1.0 : tensor<bf16>
  %c25 = fuser.constant 2.5 : tensor<bf16>
  %0 = fuser.pow %x, %c2 : tensor<8xbf16>, tensor<bf16>
  %1 = fuser.pow %x, %c3 : tensor<8xbf16>, tensor<bf16>
  %2 = fuser.pow %x, %cm2 : tensor<8xbf16>, tensor<bf16>
  %3 = fuser.pow %x, %ch : tensor<8xbf16>, tensor<bf16>
  %4 = fuser.pow %x, %cmh : tensor<8xbf16>, tensor<bf16>
  %5 = fuser.pow %x, %cm1 : tensor<8xbf16>, tensor<bf16>
  %6 = fuser.pow %x, %c1 : tensor<8xbf16>, tensor<bf16>
  %7 = fuser.pow %x, %c25 : tensor<8xbf16>, tensor<bf16>
  %8 = fuser.pow %f, %e : tensor<8xf32>, tensor<f32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>
}
