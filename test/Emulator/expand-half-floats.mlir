// RUN: fuser-opt %s --split-input-file --fuser-expand-half-floats | FileCheck %s
// RUN: fuser-opt %s --split-input-file --fuser-expand-half-floats --canonicalize | FileCheck %s --check-prefix=FOLD

// The conversions become integer arithmetic on the bits, and every half value
// an i16: nothing is left for LLVM to lower by the host CPU's means.
// CHECK-LABEL: func.func @trunc_f32_to_bf16
// CHECK-SAME: (%{{.*}}: f32) -> i16
// CHECK-NOT: truncf
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK-NOT: bf16
func.func @trunc_f32_to_bf16(%x: f32) -> bf16 {
  %0 = arith.truncf %x : f32 to bf16
  return %0 : bf16
}

// -----

// CHECK-LABEL: func.func @extend_f16_vector
// CHECK-SAME: (%{{.*}}: vector<4xi16>) -> vector<4xf32>
// CHECK-NOT: extf
// CHECK: arith.uitofp %{{.*}} : vector<4xi32> to vector<4xf32>
func.func @extend_f16_vector(%x: vector<4xf16>) -> vector<4xf32> {
  %0 = arith.extf %x : vector<4xf16> to vector<4xf32>
  return %0 : vector<4xf32>
}

// -----

// Moves keep their bits: a select and a constant of bf16.
// CHECK-LABEL: func.func @select_bf16
// CHECK: arith.constant -16512 : i16
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i16
func.func @select_bf16(%c: i1, %x: bf16) -> bf16 {
  %m = arith.constant -1.0 : bf16
  %0 = arith.select %c, %x, %m : bf16
  return %0 : bf16
}

// -----

// Exact intrinsics compute in f32: abs of an f16.
// CHECK-LABEL: func.func @fabs_f16
// CHECK: llvm.intr.fabs(%{{.*}}) : (f32) -> f32
func.func @fabs_f16(%x: f16) -> f16 {
  %0 = llvm.intr.fabs(%x) : (f16) -> f16
  return %0 : f16
}

// -----

// The rounding, checked on constants (the integer arithmetic folds):
// FOLD-LABEL: func.func @rounding
// 1 + 2^-8 is halfway between two bf16s: to even, down (0x3f80);
// FOLD-DAG: arith.constant 16256 : i16
// 1 + 3 * 2^-8 is halfway too: to even, up (0x3f82);
// FOLD-DAG: arith.constant 16258 : i16
// 2^-130, a subnormal in both, is kept (0x0008);
// FOLD-DAG: arith.constant 8 : i16
// the largest f32 rounds to infinity in bf16 (0x7f80);
// FOLD-DAG: arith.constant 32640 : i16
// 65520 is halfway between f16's largest finite and 65536: to infinity (0x7c00);
// FOLD-DAG: arith.constant 31744 : i16
// 2^-25 (half the smallest f16 subnormal) ties to zero, 2^-25 + 2^-40 to
// the smallest subnormal (0x0001);
// FOLD-DAG: arith.constant 0 : i16
// FOLD-DAG: arith.constant 1 : i16
// NaN becomes the canonical 0x7fff whatever its sign and payload.
// FOLD-DAG: arith.constant 32767 : i16
func.func @rounding() -> (bf16, bf16, bf16, bf16, f16, f16, f16, f16) {
  %a = arith.constant 1.00390625 : f32
  %b = arith.constant 1.01171875 : f32
  %c = arith.constant 7.34683969e-40 : f32
  %d = arith.constant 3.40282347e+38 : f32
  %e = arith.constant 65520.0 : f32
  %f = arith.constant 2.98023223876953125e-08 : f64
  %g = arith.constant 2.9802322387704407e-08 : f64
  %n = arith.constant 0xFFC01234 : f32
  %0 = arith.truncf %a : f32 to bf16
  %1 = arith.truncf %b : f32 to bf16
  %2 = arith.truncf %c : f32 to bf16
  %3 = arith.truncf %d : f32 to bf16
  %4 = arith.truncf %e : f32 to f16
  %5 = arith.truncf %f : f64 to f16
  %6 = arith.truncf %g : f64 to f16
  %7 = arith.truncf %n : f32 to f16
  return %0, %1, %2, %3, %4, %5, %6, %7 : bf16, bf16, bf16, bf16, f16, f16, f16, f16
}

// -----

// Widening is exact: the smallest f16 subnormal is 2^-24.
// FOLD-LABEL: func.func @widen
// FOLD: arith.constant 5.96046448E-8 : f32
func.func @widen() -> f32 {
  %s = arith.constant 1 : i16
  %h = arith.bitcast %s : i16 to f16
  %0 = arith.extf %h : f16 to f32
  return %0 : f32
}
