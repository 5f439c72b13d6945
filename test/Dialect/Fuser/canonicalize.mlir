// Folds and canonicalizations of the fuser dialect.
// RUN: fuser-opt %s -split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @fold_constants
// CHECK-DAG: %[[A:.*]] = fuser.constant 5.000000e+00 : tensor<4xf32>
// CHECK-DAG: %[[B:.*]] = fuser.constant -6 : tensor<4xi32>
// CHECK-DAG: %[[C:.*]] = fuser.constant 3 : tensor<i8>
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @fold_constants() -> (tensor<4xf32>, tensor<4xi32>, tensor<i8>) {
  %a = fuser.constant 2.0 : tensor<4xf32>
  %b = fuser.constant 3.0 : tensor<f32>
  %0 = fuser.add %a, %b : tensor<4xf32>, tensor<f32>
  %i = fuser.constant 2 : tensor<4xi32>
  %j = fuser.constant -3 : tensor<4xi32>
  %1 = fuser.mul %i, %j : tensor<4xi32>
  %k = fuser.constant -7 : tensor<i8>
  %m = fuser.constant -2 : tensor<i8>
  // floor(-7 / -2) = 3
  %2 = fuser.div %k, %m rounding_mode = floor : tensor<i8>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi32>, tensor<i8>
}

// -----

// Integer division folds with fuser's defined results for 0 and -1.
// CHECK-LABEL: func.func @fold_int_division
// CHECK-DAG: %[[Z:.*]] = fuser.constant 0 : tensor<i32>
// CHECK-DAG: %[[M:.*]] = fuser.constant -2147483648 : tensor<i32>
// CHECK-DAG: %[[F:.*]] = fuser.constant -4 : tensor<i32>
// CHECK: return %[[Z]], %[[M]], %[[F]]
func.func @fold_int_division() -> (tensor<i32>, tensor<i32>, tensor<i32>) {
  %x = fuser.constant 7 : tensor<i32>
  %zero = fuser.constant 0 : tensor<i32>
  %0 = fuser.div %x, %zero rounding_mode = trunc : tensor<i32>
  %min = fuser.constant -2147483648 : tensor<i32>
  %m1 = fuser.constant -1 : tensor<i32>
  %1 = fuser.div %min, %m1 rounding_mode = trunc : tensor<i32>
  %mx = fuser.constant -7 : tensor<i32>
  %two = fuser.constant 2 : tensor<i32>
  %2 = fuser.div %mx, %two rounding_mode = floor : tensor<i32>
  return %0, %1, %2 : tensor<i32>, tensor<i32>, tensor<i32>
}

// -----

// maximum/minimum propagate NaN like torch.maximum.
// CHECK-LABEL: func.func @fold_nan_max
// CHECK: %[[N:.*]] = fuser.constant nan : tensor<f32>
// CHECK: return %[[N]], %[[N]]
func.func @fold_nan_max() -> (tensor<f32>, tensor<f32>) {
  %n = fuser.constant nan : tensor<f32>
  %one = fuser.constant 1.0 : tensor<f32>
  %0 = fuser.maximum %one, %n : tensor<f32>
  %1 = fuser.minimum %n, %one : tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>, %[[I:.*]]: tensor<8xi32>)
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[I]], %[[X]], %[[X]]
func.func @identities(%x: tensor<4x?xf32>, %i: tensor<8xi32>)
    -> (tensor<4x?xf32>, tensor<4x?xf32>, tensor<4x?xf32>, tensor<4x?xf32>, tensor<8xi32>, tensor<4x?xf32>, tensor<4x?xf32>) {
  %nz = fuser.constant -0.0 : tensor<f32>
  %z = fuser.constant 0.0 : tensor<f32>
  %one = fuser.constant 1.0 : tensor<f32>
  %iz = fuser.constant 0 : tensor<8xi32>
  // x + -0.0 == x
  %0 = fuser.add %x, %nz : tensor<4x?xf32>, tensor<f32>
  // x - 0.0 == x
  %1 = fuser.sub %x, %z : tensor<4x?xf32>, tensor<f32>
  // 1 * x == x
  %2 = fuser.mul %one, %x : tensor<f32>, tensor<4x?xf32>
  // x / 1 == x
  %3 = fuser.div %x, %one : tensor<4x?xf32>, tensor<f32>
  // i + 0 == i
  %4 = fuser.add %iz, %i : tensor<8xi32>
  // --x == x
  %n = fuser.neg %x : tensor<4x?xf32>
  %5 = fuser.neg %n : tensor<4x?xf32>
  %6 = fuser.maximum %x, %x : tensor<4x?xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4x?xf32>, tensor<4x?xf32>, tensor<4x?xf32>, tensor<4x?xf32>, tensor<8xi32>, tensor<4x?xf32>, tensor<4x?xf32>
}

// -----

// A float x / 1 with rounding is trunc(x) or floor(x), not x: it stays
// (found by test/oracle/random_fusions.py, seed 692237125). An integer
// i / 1 is i in every mode.
// CHECK-LABEL: func.func @div_one_rounding
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK: %[[T:.*]] = fuser.div %[[X]], %{{.*}} rounding_mode = trunc
// CHECK: %[[F:.*]] = fuser.div %[[X]], %{{.*}} rounding_mode = floor
// CHECK: return %[[T]], %[[F]], %[[I]]
func.func @div_one_rounding(%x: tensor<4xf32>, %i: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %one = fuser.constant 1.0 : tensor<f32>
  %ione = fuser.constant 1 : tensor<i32>
  %0 = fuser.div %x, %one rounding_mode = trunc : tensor<4xf32>, tensor<f32>
  %1 = fuser.div %x, %one rounding_mode = floor : tensor<4xf32>, tensor<f32>
  %2 = fuser.div %i, %ione rounding_mode = trunc : tensor<4xi32>, tensor<i32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// x + 0.0 is not x when x is -0.0 (-0.0 + 0.0 == +0.0), so it stays.
// CHECK-LABEL: func.func @no_float_add_zero
// CHECK: fuser.add
func.func @no_float_add_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = fuser.constant 0.0 : tensor<f32>
  %0 = fuser.add %x, %z : tensor<4xf32>, tensor<f32>
  return %0 : tensor<4xf32>
}

// -----

// An identity whose operand has rank 0 would change the result type: no fold.
// CHECK-LABEL: func.func @no_fold_to_scalar
// CHECK: fuser.mul
func.func @no_fold_to_scalar(%s: tensor<f32>) -> tensor<4xf32> {
  %one = fuser.constant 1.0 : tensor<4xf32>
  %0 = fuser.mul %s, %one : tensor<f32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[H:.*]]: tensor<4xbf16>, %[[F:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi8>)
// CHECK: %[[C1:.*]] = fuser.cast %[[H]] : tensor<4xbf16> to tensor<4xf64>
// CHECK: %[[C2:.*]] = fuser.cast %[[F]] : tensor<4xf32> to tensor<4xbf16>
// CHECK: %[[C3:.*]] = fuser.cast %[[C2]] : tensor<4xbf16> to tensor<4xf32>
// CHECK: %[[C4:.*]] = fuser.cast %[[I]] : tensor<4xi8> to tensor<4xf32>
// CHECK: return %[[H]], %[[F]], %[[C1]], %[[C3]], %[[C4]]
func.func @casts(%h: tensor<4xbf16>, %f: tensor<4xf32>, %i: tensor<4xi8>)
    -> (tensor<4xbf16>, tensor<4xf32>, tensor<4xf64>, tensor<4xf32>, tensor<4xf32>) {
  // cast to the same type
  %0 = fuser.cast %f : tensor<4xf32> to tensor<4xf32>
  // bf16 -> f32 -> bf16 is exact: folds away
  %w = fuser.cast %h : tensor<4xbf16> to tensor<4xf32>
  %1 = fuser.cast %w : tensor<4xf32> to tensor<4xbf16>
  // bf16 -> f32 -> f64 == bf16 -> f64
  %2 = fuser.cast %w : tensor<4xf32> to tensor<4xf64>
  // f32 -> bf16 -> f32 rounds: stays
  %n = fuser.cast %f : tensor<4xf32> to tensor<4xbf16>
  %3 = fuser.cast %n : tensor<4xbf16> to tensor<4xf32>
  // i8 -> i32 -> f32 == i8 -> f32
  %e = fuser.cast %i : tensor<4xi8> to tensor<4xi32>
  %4 = fuser.cast %e : tensor<4xi32> to tensor<4xf32>
  return %1, %0, %2, %3, %4 : tensor<4xbf16>, tensor<4xf32>, tensor<4xf64>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A cast to fp8 goes through f32 and makes every NaN the format's NaN (and,
// with saturate, every infinity the largest finite): a round trip through
// a wider type is not the identity, and neither is a saturating cast to the
// same fp8 type. A cast from fp8 to a wider type still folds with the next.
// CHECK-LABEL: func.func @fp8_casts
// CHECK-SAME: (%[[Q:.*]]: tensor<4xf8E5M2>, %[[E:.*]]: tensor<4xf8E4M3FN>)
// CHECK: %[[W:.*]] = fuser.cast %[[Q]] : tensor<4xf8E5M2> to tensor<4xf32>
// CHECK: %[[R:.*]] = fuser.cast %[[W]] : tensor<4xf32> to tensor<4xf8E5M2>
// CHECK: %[[S:.*]] = fuser.cast %[[Q]] saturate : tensor<4xf8E5M2> to tensor<4xf8E5M2>
// CHECK: %[[D:.*]] = fuser.cast %[[E]] : tensor<4xf8E4M3FN> to tensor<4xf64>
// CHECK: return %[[R]], %[[S]], %[[Q]], %[[D]]
func.func @fp8_casts(%q: tensor<4xf8E5M2>, %e: tensor<4xf8E4M3FN>)
    -> (tensor<4xf8E5M2>, tensor<4xf8E5M2>, tensor<4xf8E5M2>, tensor<4xf64>) {
  %w = fuser.cast %q : tensor<4xf8E5M2> to tensor<4xf32>
  %0 = fuser.cast %w : tensor<4xf32> to tensor<4xf8E5M2>
  %1 = fuser.cast %q saturate : tensor<4xf8E5M2> to tensor<4xf8E5M2>
  // to the same type, without saturate: nothing to do (x.to(x.dtype))
  %2 = fuser.cast %q : tensor<4xf8E5M2> to tensor<4xf8E5M2>
  // e4m3 -> f32 -> f64 == e4m3 -> f64
  %v = fuser.cast %e : tensor<4xf8E4M3FN> to tensor<4xf32>
  %3 = fuser.cast %v : tensor<4xf32> to tensor<4xf64>
  return %0, %1, %2, %3 : tensor<4xf8E5M2>, tensor<4xf8E5M2>, tensor<4xf8E5M2>, tensor<4xf64>
}

// -----

// Casts of constants follow fuser's cast semantics.
// CHECK-LABEL: func.func @cast_constants
// CHECK-DAG: fuser.constant -3 : tensor<i32>
// CHECK-DAG: fuser.constant 0 : tensor<i32>
// CHECK-DAG: fuser.constant 127 : tensor<i8>
// CHECK-DAG: fuser.constant true : tensor<i1>
// CHECK-DAG: fuser.constant 2.560000e+02 : tensor<bf16>
func.func @cast_constants() -> (tensor<i32>, tensor<i32>, tensor<i8>, tensor<i1>, tensor<bf16>) {
  %a = fuser.constant -3.7 : tensor<f32>
  %0 = fuser.cast %a : tensor<f32> to tensor<i32>
  %n = fuser.constant nan : tensor<f32>
  %1 = fuser.cast %n : tensor<f32> to tensor<i32>
  %big = fuser.constant 1.0e+10 : tensor<f32>
  %2 = fuser.cast %big : tensor<f32> to tensor<i8>
  %h = fuser.constant 0.5 : tensor<f32>
  %3 = fuser.cast %h : tensor<f32> to tensor<i1>
  %k = fuser.constant 257 : tensor<i32>
  %4 = fuser.cast %k : tensor<i32> to tensor<bf16>
  return %0, %1, %2, %3, %4 : tensor<i32>, tensor<i32>, tensor<i8>, tensor<i1>, tensor<bf16>
}

// -----

// A constant becomes a half through f32, as the kernels and PyTorch convert
// it: f64 1 + 2^-11 + 2^-40 is 1 + 2^-11 in f32, a midpoint of f16 that
// rounds to even (1.0; rounded once it would be 1 + 2^-10); the same for
// bf16 and 1 + 2^-8 + 2^-30; i32 2^24 + 2^16 + 1 is 2^24 + 2^16 in f32, a
// midpoint of bf16, so 2^24 (once: 2^24 + 2^17).
// CHECK-LABEL: func.func @cast_constants_to_half
// CHECK-DAG: fuser.constant 1.000000e+00 : tensor<f16>
// CHECK-DAG: fuser.constant 1.000000e+00 : tensor<bf16>
// CHECK-DAG: fuser.constant 1.677720e+07 : tensor<bf16>
// CHECK-DAG: fuser.constant 1.000980e+00 : tensor<f16>
func.func @cast_constants_to_half() -> (tensor<f16>, tensor<bf16>, tensor<bf16>, tensor<f16>) {
  %a = fuser.constant 0x3FF0020000000100 : tensor<f64>
  %0 = fuser.cast %a : tensor<f64> to tensor<f16>
  %b = fuser.constant 0x3FF0100000040000 : tensor<f64>
  %1 = fuser.cast %b : tensor<f64> to tensor<bf16>
  %k = fuser.constant 16842753 : tensor<i32>
  %2 = fuser.cast %k : tensor<i32> to tensor<bf16>
  // Above the midpoint in f32 as well: rounds up either way.
  %c = fuser.constant 0x3FF0030000000000 : tensor<f64>
  %3 = fuser.cast %c : tensor<f64> to tensor<f16>
  return %0, %1, %2, %3 : tensor<f16>, tensor<bf16>, tensor<bf16>, tensor<f16>
}

// -----

// integer -> float -> integer folds to one cast only where that cast does
// not wrap where the float's saturates: to a type at least as wide, or i1.
// CHECK-LABEL: func.func @cast_chain_through_float
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK: %[[N:.*]] = fuser.cast %[[X]] : tensor<4xi32> to tensor<4xf64>
// CHECK: %[[S:.*]] = fuser.cast %[[N]] : tensor<4xf64> to tensor<4xi8>
// CHECK: %[[W:.*]] = fuser.cast %[[X]] : tensor<4xi32> to tensor<4xi64>
// CHECK: %[[B:.*]] = fuser.cast %[[X]] : tensor<4xi32> to tensor<4xi1>
// CHECK: return %[[S]], %[[W]], %[[X]], %[[B]]
func.func @cast_chain_through_float(%x: tensor<4xi32>)
    -> (tensor<4xi8>, tensor<4xi64>, tensor<4xi32>, tensor<4xi1>) {
  %d = fuser.cast %x : tensor<4xi32> to tensor<4xf64>
  %0 = fuser.cast %d : tensor<4xf64> to tensor<4xi8>
  %1 = fuser.cast %d : tensor<4xf64> to tensor<4xi64>
  %2 = fuser.cast %d : tensor<4xf64> to tensor<4xi32>
  %3 = fuser.cast %d : tensor<4xf64> to tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xi8>, tensor<4xi64>, tensor<4xi32>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @shapes
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<2x3x4xf32>)
func.func @shapes(%x: tensor<4xf32>, %y: tensor<2x3x4xf32>)
    -> (tensor<4xf32>, tensor<2x3x4xf32>, tensor<5x4x3xf32>, tensor<24xf32>, tensor<4x3x2xf32>, tensor<2x3x4xf32>, tensor<3x2xf32>) {
  // CHECK-DAG: %[[BB:.*]] = fuser.broadcast %[[X]] dims = [2] : tensor<4xf32> -> tensor<5x4x4x3xf32>
  // CHECK-DAG: %[[C:.*]] = fuser.constant 1.500000e+00 : tensor<3x2xf32>
  // CHECK-DAG: %[[RR:.*]] = fuser.reshape %[[Y]] : tensor<2x3x4xf32> -> tensor<24xf32>
  // CHECK-DAG: %[[PP:.*]] = fuser.permute %[[Y]] perm = [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  %0 = fuser.broadcast %x dims = [0] : tensor<4xf32> -> tensor<4xf32>
  %1 = fuser.reshape %y : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %b1 = fuser.broadcast %x dims = [1] : tensor<4xf32> -> tensor<4x4x3xf32>
  %2 = fuser.broadcast %b1 dims = [1, 2, 3] : tensor<4x4x3xf32> -> tensor<5x4x4x3xf32>
  %r1 = fuser.reshape %y : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %3 = fuser.reshape %r1 : tensor<6x4xf32> -> tensor<24xf32>
  %p1 = fuser.permute %y perm = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %4 = fuser.permute %p1 perm = [2, 0, 1] : tensor<3x2x4xf32> -> tensor<4x3x2xf32>
  %p2 = fuser.permute %y perm = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %5 = fuser.permute %p2 perm = [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  %c = fuser.constant 1.5 : tensor<f32>
  %cb = fuser.broadcast %c dims = [] : tensor<f32> -> tensor<6xf32>
  %6 = fuser.reshape %cb : tensor<6xf32> -> tensor<3x2xf32>
  // The whole-range slice folds away; the reductions stay.
  // CHECK: %[[S0:.*]] = fuser.sum %[[BB]] dims = [0]
  // CHECK: return %[[X]], %[[Y]], %{{.*}}, %[[RR]], %[[PP]], %[[Y]], %[[C]]
  %sl = fuser.slice %2 start = [0, 0, 0, 0] limit = [5, 4, 4, 9223372036854775807] step = [1, 1, 1, 1] : tensor<5x4x4x3xf32> -> tensor<5x4x4x3xf32>
  %red = fuser.sum %sl dims = [0] : tensor<5x4x4x3xf32> -> tensor<4x4x3xf32>
  %sq = fuser.sum %red dims = [0] : tensor<4x4x3xf32> -> tensor<4x3xf32>
  %out = fuser.broadcast %sq dims = [1, 2] : tensor<4x3xf32> -> tensor<5x4x3xf32>
  return %0, %1, %out, %3, %4, %5, %6 : tensor<4xf32>, tensor<2x3x4xf32>, tensor<5x4x3xf32>, tensor<24xf32>, tensor<4x3x2xf32>, tensor<2x3x4xf32>, tensor<3x2xf32>
}

// -----

// Reductions over dims that all have static size 1 are reshapes (or the
// input itself with keepdim); any/all of non-i1 inputs compare with zero
// and stay; a reduction over a dim of another size too reduces over that
// dim alone; over an empty tensor with a dynamic dim the reduction stays
// (the reshape could not infer the dim beside the 0).
// CHECK-LABEL: func.func @reduce_unit_dims
// CHECK-NOT: fuser.add
// CHECK-DAG: %[[S:.*]] = fuser.reshape %arg0 : tensor<64x1x128xf32> -> tensor<64x128xf32>
// CHECK-DAG: %[[N:.*]] = fuser.reshape %arg1 : tensor<?x1x128xbf16> -> tensor<?x128xbf16>
// CHECK-DAG: %[[A:.*]] = fuser.reshape %arg2 : tensor<4x1xi1> -> tensor<4xi1>
// CHECK-DAG: %[[C:.*]] = fuser.any %arg3 dims = [1]
// CHECK-DAG: %[[T1:.*]] = fuser.sum %arg0 dims = [2] : tensor<64x1x128xf32> -> tensor<64x1xf32>
// CHECK-DAG: %[[T:.*]] = fuser.reshape %[[T1]] : tensor<64x1xf32> -> tensor<64xf32>
// CHECK-DAG: %[[I:.*]] = fuser.reshape %arg3 : tensor<4x1xi32> -> tensor<4xi32>
// CHECK-DAG: %[[E:.*]] = fuser.sum %arg4 dims = [1] : tensor<?x1x0xf32> -> tensor<?x0xf32>
// CHECK: return %[[S]], %arg0, %[[N]], %[[A]], %[[C]], %[[T]], %[[I]], %[[E]]
func.func @reduce_unit_dims(%x: tensor<64x1x128xf32>, %d: tensor<?x1x128xbf16>, %b: tensor<4x1xi1>, %i: tensor<4x1xi32>, %e: tensor<?x1x0xf32>)
    -> (tensor<64x128xf32>, tensor<64x1x128xf32>, tensor<?x128xbf16>, tensor<4xi1>, tensor<4xi1>, tensor<64xf32>, tensor<4xi32>, tensor<?x0xf32>) {
  %s = fuser.sum %x dims = [1] : tensor<64x1x128xf32> -> tensor<64x128xf32>
  %m = fuser.max %x dims = [1] keepdim = true : tensor<64x1x128xf32> -> tensor<64x1x128xf32>
  %n = fuser.mean %d dims = [1] : tensor<?x1x128xbf16> -> tensor<?x128xbf16>
  %a = fuser.any %b dims = [1] : tensor<4x1xi1> -> tensor<4xi1>
  %c = fuser.any %i dims = [1] : tensor<4x1xi32> -> tensor<4xi1>
  %t = fuser.sum %x dims = [1, 2] : tensor<64x1x128xf32> -> tensor<64xf32>
  %si = fuser.sum %i dims = [1] : tensor<4x1xi32> -> tensor<4xi32>
  %se = fuser.sum %e dims = [1] : tensor<?x1x0xf32> -> tensor<?x0xf32>
  return %s, %m, %n, %a, %c, %t, %si, %se : tensor<64x128xf32>, tensor<64x1x128xf32>, tensor<?x128xbf16>, tensor<4xi1>, tensor<4xi1>, tensor<64xf32>, tensor<4xi32>, tensor<?x0xf32>
}

// -----

// A float sum or mean over size-1 dims of a value a kernel computes adds
// +0.0, which that kernel does: the sum starts from +0.0, so -0.0 sums to
// +0.0, as in PyTorch (an argument's stays a reshape, no kernel).
// CHECK-LABEL: func.func @reduce_unit_dims_sign
// CHECK: %[[Z:.*]] = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK: %[[N:.*]] = fuser.neg %arg0
// CHECK: %[[A:.*]] = fuser.add %[[N]], %[[Z]] : tensor<4x1xf32>, tensor<f32>
// CHECK: %[[R:.*]] = fuser.reshape %[[A]] : tensor<4x1xf32> -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @reduce_unit_dims_sign(%x: tensor<4x1xf32>) -> tensor<4xf32> {
  %n = fuser.neg %x : tensor<4x1xf32>
  %s = fuser.sum %n dims = [1] : tensor<4x1xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// A view of a computed value is computed too: a sum over a size-1 dim of a
// reshape of neg(x) adds +0.0 (it kept -0.0; found by an adversarial run).
// CHECK-LABEL: func.func @reduce_unit_dims_sign_view
// CHECK: %[[Z:.*]] = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK: %[[N:.*]] = fuser.neg %arg0
// CHECK: %[[A:.*]] = fuser.add %[[N]], %[[Z]] : tensor<4xf32>, tensor<f32>
// CHECK: return %[[A]]
func.func @reduce_unit_dims_sign_view(%x: tensor<4xf32>) -> tensor<4xf32> {
  %n = fuser.neg %x : tensor<4xf32>
  %r = fuser.reshape %n : tensor<4xf32> -> tensor<4x1xf32>
  %s = fuser.sum %r dims = [1] : tensor<4x1xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// With keepdim, reduced dims of static size 1 beside others drop out of the
// dims: a mean over [0, 2, 3] of [1, C, 1, W] is a row reduction over W
// (one normalization kernel, not a column statistic and a second kernel).
// Without keepdim the size-1 dims stay in the new result and a reshape
// drops them (it sinks toward a broadcast, which folds it away). A dynamic
// dim stays: it may not be 1.
// CHECK-LABEL: func.func @reduce_some_unit_dims
// CHECK-DAG: %[[M:.*]] = fuser.mean %arg0 dims = [3] keepdim = true : tensor<1x64x1x1024xf32> -> tensor<1x64x1x1xf32>
// CHECK-DAG: %[[X:.*]] = fuser.max %arg1 dims = [1] keepdim = true : tensor<8x128x1xbf16> -> tensor<8x1x1xbf16>
// CHECK-DAG: %[[S1:.*]] = fuser.sum %arg0 dims = [3] : tensor<1x64x1x1024xf32> -> tensor<1x64x1xf32>
// CHECK-DAG: %[[S:.*]] = fuser.reshape %[[S1]] : tensor<1x64x1xf32> -> tensor<64x1xf32>
// CHECK-DAG: %[[D:.*]] = fuser.sum %arg2 dims = [0] keepdim = true : tensor<?x1x16xf32> -> tensor<1x1x16xf32>
// CHECK-DAG: %[[V:[a-z_0-9]+]], %[[VM:[a-z_0-9]+]] = fuser.var_mean %arg0 dims = [3] correction = 0 keepdim = true : tensor<1x64x1x1024xf32> -> tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>
// CHECK-DAG: %[[W1:[a-z_0-9]+]], %{{[a-z_0-9]+}} = fuser.var_mean %arg0 dims = [3] : tensor<1x64x1x1024xf32> -> tensor<1x64x1xf32>, tensor<1x64x1xf32>
// CHECK-DAG: %[[W:.*]] = fuser.reshape %[[W1]] : tensor<1x64x1xf32> -> tensor<64x1xf32>
// CHECK: return %[[M]], %[[X]], %[[S]], %[[D]], %[[V]], %[[VM]], %[[W]]
func.func @reduce_some_unit_dims(%x: tensor<1x64x1x1024xf32>, %y: tensor<8x128x1xbf16>, %z: tensor<?x1x16xf32>)
    -> (tensor<1x64x1x1xf32>, tensor<8x1x1xbf16>, tensor<64x1xf32>, tensor<1x1x16xf32>,
        tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>, tensor<64x1xf32>) {
  %m = fuser.mean %x dims = [0, 2, 3] keepdim = true : tensor<1x64x1x1024xf32> -> tensor<1x64x1x1xf32>
  %mx = fuser.max %y dims = [1, 2] keepdim = true : tensor<8x128x1xbf16> -> tensor<8x1x1xbf16>
  %s = fuser.sum %x dims = [0, 3] : tensor<1x64x1x1024xf32> -> tensor<64x1xf32>
  %d = fuser.sum %z dims = [0, 1] keepdim = true : tensor<?x1x16xf32> -> tensor<1x1x16xf32>
  %v, %vm = fuser.var_mean %x dims = [0, 2, 3] correction = 0 keepdim = true : tensor<1x64x1x1024xf32> -> tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>
  %w, %wm = fuser.var_mean %x dims = [0, 3] : tensor<1x64x1x1024xf32> -> tensor<64x1xf32>, tensor<64x1xf32>
  return %m, %mx, %s, %d, %v, %vm, %w : tensor<1x64x1x1xf32>, tensor<8x1x1xbf16>, tensor<64x1xf32>, tensor<1x1x16xf32>, tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>, tensor<64x1xf32>
}

// -----

// A broadcast of a reshape that only adds or drops size-1 dims broadcasts
// the reshape's operand; a size-1 dim takes the first free result dim. The
// reshape stays where it has another use. Left alone: a reshape that moves
// elements between dims, one whose size-1 dim finds no free result dim,
// and one that refines a dynamic dim (its launch-time check stays).
// CHECK-LABEL: func.func @broadcast_through_unit_reshape
// CHECK-DAG: %[[A:.*]] = fuser.broadcast %arg0 dims = [1] : tensor<32xf32> -> tensor<8x32x4x4xf32>
// CHECK-DAG: %[[B:.*]] = fuser.broadcast %arg1 dims = [0, 1] : tensor<1x32xf32> -> tensor<1x32x4x4xf32>
// CHECK-DAG: %[[R:.*]] = fuser.reshape %arg1 : tensor<1x32xf32> -> tensor<32xf32>
// CHECK-DAG: %[[C:.*]] = fuser.broadcast %[[R]] dims = [0] : tensor<32xf32> -> tensor<32x4xf32>
// CHECK-DAG: %[[M:.*]] = fuser.reshape %arg2 : tensor<8x4xf32> -> tensor<32xf32>
// CHECK-DAG: %[[D:.*]] = fuser.broadcast %[[M]] dims = [1] : tensor<32xf32> -> tensor<2x32xf32>
// CHECK-DAG: %[[F:.*]] = fuser.reshape %arg3 {fuser.refines_shape} : tensor<?xf32> -> tensor<1x32xf32>
// CHECK-DAG: %[[E:.*]] = fuser.broadcast %[[F]] dims = [0, 1] : tensor<1x32xf32> -> tensor<4x32xf32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[R]], %[[D]], %[[E]]
func.func @broadcast_through_unit_reshape(%a: tensor<32xf32>, %b: tensor<1x32xf32>, %m: tensor<8x4xf32>, %f: tensor<?xf32>)
    -> (tensor<8x32x4x4xf32>, tensor<1x32x4x4xf32>, tensor<32x4xf32>, tensor<32xf32>, tensor<2x32xf32>, tensor<4x32xf32>) {
  %a4 = fuser.reshape %a : tensor<32xf32> -> tensor<1x32x1x1xf32>
  %0 = fuser.broadcast %a4 dims = [0, 1, 2, 3] : tensor<1x32x1x1xf32> -> tensor<8x32x4x4xf32>
  %b1 = fuser.reshape %b : tensor<1x32xf32> -> tensor<32xf32>
  %1 = fuser.broadcast %b1 dims = [1] : tensor<32xf32> -> tensor<1x32x4x4xf32>
  %2 = fuser.broadcast %b1 dims = [0] : tensor<32xf32> -> tensor<32x4xf32>
  %m1 = fuser.reshape %m : tensor<8x4xf32> -> tensor<32xf32>
  %3 = fuser.broadcast %m1 dims = [1] : tensor<32xf32> -> tensor<2x32xf32>
  %f1 = fuser.reshape %f {fuser.refines_shape} : tensor<?xf32> -> tensor<1x32xf32>
  %4 = fuser.broadcast %f1 dims = [0, 1] : tensor<1x32xf32> -> tensor<4x32xf32>
  return %0, %1, %2, %b1, %3, %4 : tensor<8x32x4x4xf32>, tensor<1x32x4x4xf32>, tensor<32x4xf32>, tensor<32xf32>, tensor<2x32xf32>, tensor<4x32xf32>
}

// -----

// An elementwise op of unit-dim reshapes of one shape (and rank-0 scalars)
// computes on the reshapes' operands and reshapes after: batch_norm's
// rsqrt(var + eps) of a keepdim=false statistic at a batch of one reaches
// its broadcast, which folds the reshape away. An operand of the result's
// shape that is not such a reshape keeps the op where it is.
// CHECK-LABEL: func.func @sink_unit_reshape
// CHECK: %[[E:.*]] = fuser.constant 9.99999974E-6 : tensor<f32>
// CHECK: %[[V:[a-z_0-9]+]], %[[M:[a-z_0-9]+]] = fuser.var_mean %arg0 dims = [2, 3] correction = 0 : tensor<1x32x8x8xf32> -> tensor<1x32xf32>, tensor<1x32xf32>
// CHECK-DAG: %[[ME:.*]] = fuser.reshape %[[M]] : tensor<1x32xf32> -> tensor<32xf32>
// CHECK-DAG: %[[VE:.*]] = fuser.add %[[V]], %[[E]] : tensor<1x32xf32>, tensor<f32>
// CHECK-DAG: %[[R:.*]] = fuser.rsqrt %[[VE]] : tensor<1x32xf32>
// CHECK-DAG: %[[RB:.*]] = fuser.broadcast %[[R]] dims = [0, 1] : tensor<1x32xf32> -> tensor<1x32x8x8xf32>
// CHECK-DAG: %[[MB:.*]] = fuser.broadcast %[[M]] dims = [0, 1] : tensor<1x32xf32> -> tensor<1x32x8x8xf32>
// CHECK-DAG: %[[W:.*]] = fuser.mul %[[ME]], %arg1 : tensor<32xf32>
// CHECK: return %{{.*}}, %[[ME]], %[[W]]
func.func @sink_unit_reshape(%x: tensor<1x32x8x8xf32>, %w: tensor<32xf32>) -> (tensor<1x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>) {
  %var, %mean = fuser.var_mean %x dims = [0, 2, 3] correction = 0 keepdim = false : tensor<1x32x8x8xf32> -> tensor<32xf32>, tensor<32xf32>
  %eps = fuser.constant 1.0e-5 : tensor<f32>
  %ve = fuser.add %var, %eps : tensor<32xf32>, tensor<f32>
  %rstd = fuser.rsqrt %ve : tensor<32xf32>
  %mb = fuser.broadcast %mean dims = [1] : tensor<32xf32> -> tensor<1x32x8x8xf32>
  %rb = fuser.broadcast %rstd dims = [1] : tensor<32xf32> -> tensor<1x32x8x8xf32>
  %zc = fuser.sub %x, %mb : tensor<1x32x8x8xf32>
  %y = fuser.mul %zc, %rb : tensor<1x32x8x8xf32>
  %mw = fuser.mul %mean, %w : tensor<32xf32>
  return %y, %mean, %mw : tensor<1x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>
}

// -----

// A reshape to rank 0 stays where it is: a rank-0 operand is already a
// scalar to an elementwise op (taken for one, the sinking never ended).
// CHECK-LABEL: func.func @rank0_reshape_stays
// CHECK: %[[R:.*]] = fuser.reshape %arg0 : tensor<1xf32> -> tensor<f32>
// CHECK: %[[E:.*]] = fuser.exp %[[R]] : tensor<f32>
// CHECK: fuser.add %[[E]], %arg1 : tensor<f32>
func.func @rank0_reshape_stays(%x: tensor<1xf32>, %s: tensor<f32>) -> tensor<f32> {
  %r = fuser.reshape %x : tensor<1xf32> -> tensor<f32>
  %e = fuser.exp %r : tensor<f32>
  %a = fuser.add %e, %s : tensor<f32>
  return %a : tensor<f32>
}

// -----

// The sunk op is built at the op it replaces, where all its operands are
// defined: %b comes after %a, the reshape the pattern starts from.
// CHECK-LABEL: func.func @sink_after_later_operand
// CHECK: %[[E:.*]] = fuser.exp %arg1 : tensor<1x8xf32>
// CHECK: %[[S:.*]] = fuser.add %arg0, %[[E]] : tensor<1x8xf32>
// CHECK: %[[R:.*]] = fuser.reshape %[[S]] : tensor<1x8xf32> -> tensor<8xf32>
// CHECK: return %[[R]]
func.func @sink_after_later_operand(%x: tensor<1x8xf32>, %y: tensor<1x8xf32>) -> tensor<8xf32> {
  %a = fuser.reshape %x : tensor<1x8xf32> -> tensor<8xf32>
  %e = fuser.exp %y : tensor<1x8xf32>
  %b = fuser.reshape %e : tensor<1x8xf32> -> tensor<8xf32>
  %s = fuser.add %a, %b : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A static extent folds to a constant of the result type; a dynamic one stays.
// CHECK-LABEL: func.func @size_folds
// CHECK-DAG: %[[F:.*]] = fuser.constant 1.280000e+02 : tensor<bf16>
// CHECK-DAG: %[[I:.*]] = fuser.constant 128 : tensor<i32>
// CHECK-DAG: %[[R:.*]] = fuser.constant 0x4B800000 : tensor<f32>
// CHECK-DAG: %[[D:.*]] = fuser.size %arg0 dim = 0
// CHECK: return %[[F]], %[[I]], %[[R]], %[[D]]
func.func @size_folds(%x: tensor<?x128xf32>, %y: tensor<16777217xi8>) -> (tensor<bf16>, tensor<i32>, tensor<f32>, tensor<i64>) {
  %0 = fuser.size %x dim = 1 : tensor<?x128xf32> -> tensor<bf16>
  %1 = fuser.size %x dim = 1 : tensor<?x128xf32> -> tensor<i32>
  // 2^24 + 1 rounds to even in f32
  %2 = fuser.size %y dim = 0 : tensor<16777217xi8> -> tensor<f32>
  %3 = fuser.size %x dim = 0 : tensor<?x128xf32> -> tensor<i64>
  return %0, %1, %2, %3 : tensor<bf16>, tensor<i32>, tensor<f32>, tensor<i64>
}

// -----

// A size becomes a half through f32, as a dynamic size does in a kernel:
// 2^24 + 2^16 + 1 is 2^24 + 2^16 in f32, a midpoint of bf16, so 2^24
// (rounded once it would be 2^24 + 2^17), whether the dim is static or not.
// CHECK-LABEL: func.func @size_to_half
// CHECK: %[[F:.*]] = fuser.constant 1.677720e+07 : tensor<bf16>
// CHECK: return %[[F]]
func.func @size_to_half(%y: tensor<16842753xi8>) -> tensor<bf16> {
  %0 = fuser.size %y dim = 0 : tensor<16842753xi8> -> tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

// A decimal literal is a double, made a half through f32 as PyTorch makes a
// Python number one: 1.0039062509313226 is 1 + 2^-8 in f32, a midpoint of
// bf16 that rounds to even (1.0; rounded once it would be 1 + 2^-7). So
// are integer literals: 16842753 is 2^24 + 2^16 in f32, then 2^24.
// CHECK-LABEL: func.func @half_literals
// CHECK-DAG: fuser.constant 1.000000e+00 : tensor<bf16>
// CHECK-DAG: fuser.constant 1.677720e+07 : tensor<bf16>
// CHECK-DAG: fuser.constant 1.007810e+00 : tensor<bf16>
func.func @half_literals() -> (tensor<bf16>, tensor<bf16>, tensor<bf16>) {
  %0 = fuser.constant 1.0039062509313226 : tensor<bf16>
  %1 = fuser.constant 16842753 : tensor<bf16>
  // A bf16 value printed and read back is the same value.
  %2 = fuser.constant 1.007810e+00 : tensor<bf16>
  return %0, %1, %2 : tensor<bf16>, tensor<bf16>, tensor<bf16>
}

// -----

// A reshape of a reshape is one reshape only where its sizes cannot depend
// on the shape in between: with at most one dynamic result dim (the
// element count gives it), or two refinements. [?, ?] -> [?] -> [?, ?]
// is (n, 1) by the pairing rule (docs/dialect.md), not the input's dims.
// CHECK-LABEL: func.func @dynamic_reshape_chains
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>)
// CHECK: %[[F:.*]] = fuser.reshape %[[X]] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: %[[B:.*]] = fuser.reshape %[[F]] : tensor<?xf32> -> tensor<?x?xf32>
// CHECK: %[[C:.*]] = fuser.reshape %[[X]] : tensor<?x?xf32> -> tensor<?x4xf32>
// CHECK: return %[[B]], %[[C]]
func.func @dynamic_reshape_chains(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x4xf32>) {
  %a = fuser.reshape %x : tensor<?x?xf32> -> tensor<?xf32>
  %b = fuser.reshape %a : tensor<?xf32> -> tensor<?x?xf32>
  %c = fuser.reshape %a : tensor<?xf32> -> tensor<?x4xf32>
  return %b, %c : tensor<?x?xf32>, tensor<?x4xf32>
}

// -----

// A reshape sized by its uses (fuser-vjp's dims_from_uses) takes no sizes
// from its input: the chain folds.
// CHECK-LABEL: func.func @reshape_chain_sized_by_uses
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>, %[[Y:.*]]: tensor<?x?x?xf32>)
// CHECK: %[[R:.*]] = fuser.reshape %[[X]] {fuser.dims_from_uses} : tensor<?xf32> -> tensor<?x?x?xf32>
// CHECK: fuser.add %[[R]], %[[Y]]
func.func @reshape_chain_sized_by_uses(%x: tensor<?xf32>, %y: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %a = fuser.reshape %x {fuser.dims_from_uses} : tensor<?xf32> -> tensor<?x?xf32>
  %b = fuser.reshape %a {fuser.dims_from_uses} : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %c = fuser.add %b, %y : tensor<?x?x?xf32>, tensor<?x?x?xf32>
  return %c : tensor<?x?x?xf32>
}

// -----

// A reshape of a reshape is one reshape; it keeps fuser.refines_shape (its
// dims are its input's, one for one) only when both were refinements.
// CHECK-LABEL: func.func @refinements
// CHECK: fuser.reshape %arg0 {fuser.refines_shape} : tensor<?x?xf32> -> tensor<4x1xf32>
// CHECK: fuser.reshape %arg1 : tensor<?xf32> -> tensor<?x1xf32>
// CHECK-NOT: refines_shape
func.func @refinements(%x: tensor<?x?xf32>, %y: tensor<?xf32>) -> (tensor<4x1xf32>, tensor<?x1xf32>) {
  %0 = fuser.reshape %x {fuser.refines_shape} : tensor<?x?xf32> -> tensor<?x1xf32>
  %1 = fuser.reshape %0 {fuser.refines_shape} : tensor<?x1xf32> -> tensor<4x1xf32>
  %2 = fuser.reshape %y : tensor<?xf32> -> tensor<?x?xf32>
  %3 = fuser.reshape %2 {fuser.refines_shape} : tensor<?x?xf32> -> tensor<?x1xf32>
  return %1, %3 : tensor<4x1xf32>, tensor<?x1xf32>
}

// -----

// A dynamic dim taken to its end (start 0, step 1) is whole: the slice folds;
// one with a static limit is checked at launch and stays.
// CHECK-LABEL: func.func @slice_to_end_whole
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK: %[[S:.*]] = fuser.slice %[[X]] start = [0, 0] limit = [4, 8]
// CHECK: return %[[X]], %[[S]]
func.func @slice_to_end_whole(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<4x8xf32>) {
  %a = fuser.slice %x start = [0, 0] limit = [9223372036854775807, 8] step = [1, 1] : tensor<?x8xf32> -> tensor<?x8xf32>
  %b = fuser.slice %x start = [0, 0] limit = [4, 8] step = [1, 1] : tensor<?x8xf32> -> tensor<4x8xf32>
  return %a, %b : tensor<?x8xf32>, tensor<4x8xf32>
}

// -----

// Scans along a dim of static size 1: each element combines itself alone.
// A float cumsum adds +0.0 (PyTorch's starts from it: -0.0 becomes +0.0),
// an i64 cumsum and a cumprod are their input, cummax and cummin of a
// static shape their input and indices 0. A cummax beside a `?` dim stays
// (its zeros would need the input's size).
// CHECK-LABEL: func.func @scan_unit_dim
// CHECK-SAME: (%[[X:.*]]: tensor<4x1xf32>, %[[L:.*]]: tensor<4x1xi64>, %[[D:.*]]: tensor<?x1xbf16>)
// CHECK-DAG: %[[Z:.*]] = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-DAG: %[[I:.*]] = fuser.constant 0 : tensor<4x1xi64>
// CHECK-DAG: %[[S:.*]] = fuser.add %[[X]], %[[Z]] : tensor<4x1xf32>, tensor<f32>
// CHECK-DAG: %[[DV:.*]], %[[DI:.*]] = fuser.cummax %[[D]] dim = 1 : tensor<?x1xbf16> -> tensor<?x1xi64>
// CHECK: return %[[S]], %[[L]], %[[D]], %[[X]], %[[I]], %[[DI]]
func.func @scan_unit_dim(%x: tensor<4x1xf32>, %l: tensor<4x1xi64>, %d: tensor<?x1xbf16>)
    -> (tensor<4x1xf32>, tensor<4x1xi64>, tensor<?x1xbf16>, tensor<4x1xf32>, tensor<4x1xi64>, tensor<?x1xi64>) {
  %s = fuser.cumsum %x dim = 1 : tensor<4x1xf32>
  %si = fuser.cumsum %l dim = 1 : tensor<4x1xi64>
  %p = fuser.cumprod %d dim = 1 : tensor<?x1xbf16>
  %v, %i = fuser.cummin %x dim = 1 : tensor<4x1xf32> -> tensor<4x1xi64>
  %dv, %di = fuser.cummax %d dim = 1 : tensor<?x1xbf16> -> tensor<?x1xi64>
  return %s, %si, %p, %v, %i, %di : tensor<4x1xf32>, tensor<4x1xi64>, tensor<?x1xbf16>, tensor<4x1xf32>, tensor<4x1xi64>, tensor<?x1xi64>
}
