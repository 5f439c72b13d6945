// Every op round-trips in its custom form, and through the generic form.
// RUN: fuser-opt %s | fuser-opt | FileCheck %s
// RUN: fuser-opt %s --mlir-print-op-generic | fuser-opt | FileCheck %s

// CHECK-LABEL: func.func @unary
func.func @unary(%f: tensor<4x?xf32>, %i: tensor<4x?xi32>, %b: tensor<4x?xi1>) {
  // CHECK: fuser.neg %{{.*}} : tensor<4x?xf32>
  %0 = fuser.neg %f : tensor<4x?xf32>
  // CHECK: fuser.abs %{{.*}} : tensor<4x?xi32>
  %1 = fuser.abs %i : tensor<4x?xi32>
  // CHECK: fuser.exp
  %2 = fuser.exp %f : tensor<4x?xf32>
  // CHECK: fuser.exp2
  %3 = fuser.exp2 %f : tensor<4x?xf32>
  // CHECK: fuser.expm1
  %4 = fuser.expm1 %f : tensor<4x?xf32>
  // CHECK: fuser.log
  %5 = fuser.log %f : tensor<4x?xf32>
  // CHECK: fuser.log2
  %6 = fuser.log2 %f : tensor<4x?xf32>
  // CHECK: fuser.log1p
  %7 = fuser.log1p %f : tensor<4x?xf32>
  // CHECK: fuser.sqrt
  %8 = fuser.sqrt %f : tensor<4x?xf32>
  // CHECK: fuser.rsqrt
  %9 = fuser.rsqrt %f : tensor<4x?xf32>
  // CHECK: fuser.reciprocal
  %10 = fuser.reciprocal %f : tensor<4x?xf32>
  // CHECK: fuser.sin
  %11 = fuser.sin %f : tensor<4x?xf32>
  // CHECK: fuser.cos
  %12 = fuser.cos %f : tensor<4x?xf32>
  // CHECK: fuser.tanh
  %13 = fuser.tanh %f : tensor<4x?xf32>
  // CHECK: fuser.sigmoid
  %14 = fuser.sigmoid %f : tensor<4x?xf32>
  // CHECK: fuser.erf
  %15 = fuser.erf %f : tensor<4x?xf32>
  // CHECK: fuser.relu %{{.*}} : tensor<4x?xi32>
  %16 = fuser.relu %i : tensor<4x?xi32>
  // CHECK: fuser.gelu %{{.*}} : tensor<4x?xf32>
  %17 = fuser.gelu %f : tensor<4x?xf32>
  // CHECK: fuser.gelu %{{.*}} approximate = tanh : tensor<4x?xf32>
  %18 = fuser.gelu %f approximate = tanh : tensor<4x?xf32>
  // CHECK: fuser.silu
  %19 = fuser.silu %f : tensor<4x?xf32>
  // CHECK: fuser.floor
  %20 = fuser.floor %f : tensor<4x?xf32>
  // CHECK: fuser.ceil
  %21 = fuser.ceil %f : tensor<4x?xf32>
  // CHECK: fuser.round
  %22 = fuser.round %f : tensor<4x?xf32>
  // CHECK: fuser.sign
  %23 = fuser.sign %f : tensor<4x?xf32>
  // CHECK: fuser.log10 %{{.*}} : tensor<4x?xf32>
  %n_log10 = fuser.log10 %f : tensor<4x?xf32>
  // CHECK: fuser.tan %{{.*}} : tensor<4x?xf32>
  %n_tan = fuser.tan %f : tensor<4x?xf32>
  // CHECK: fuser.asin %{{.*}} : tensor<4x?xf32>
  %n_asin = fuser.asin %f : tensor<4x?xf32>
  // CHECK: fuser.acos %{{.*}} : tensor<4x?xf32>
  %n_acos = fuser.acos %f : tensor<4x?xf32>
  // CHECK: fuser.atan %{{.*}} : tensor<4x?xf32>
  %n_atan = fuser.atan %f : tensor<4x?xf32>
  // CHECK: fuser.sinh %{{.*}} : tensor<4x?xf32>
  %n_sinh = fuser.sinh %f : tensor<4x?xf32>
  // CHECK: fuser.cosh %{{.*}} : tensor<4x?xf32>
  %n_cosh = fuser.cosh %f : tensor<4x?xf32>
  // CHECK: fuser.asinh %{{.*}} : tensor<4x?xf32>
  %n_asinh = fuser.asinh %f : tensor<4x?xf32>
  // CHECK: fuser.acosh %{{.*}} : tensor<4x?xf32>
  %n_acosh = fuser.acosh %f : tensor<4x?xf32>
  // CHECK: fuser.atanh %{{.*}} : tensor<4x?xf32>
  %n_atanh = fuser.atanh %f : tensor<4x?xf32>
  // CHECK: fuser.trunc %{{.*}} : tensor<4x?xf32>
  %n_trunc = fuser.trunc %f : tensor<4x?xf32>
  // CHECK: fuser.trunc %{{.*}} : tensor<4x?xi32>
  %n_trunc_i = fuser.trunc %i : tensor<4x?xi32>
  // CHECK: fuser.not %{{.*}} : tensor<4x?xi1>
  %24 = fuser.not %b : tensor<4x?xi1>
  // CHECK: fuser.isnan %{{.*}} : tensor<4x?xf32>
  %25 = fuser.isnan %f : tensor<4x?xf32>
  // CHECK: fuser.isinf
  %26 = fuser.isinf %f : tensor<4x?xf32>
  // CHECK: fuser.isfinite %{{.*}} : tensor<4x?xi32>
  %27 = fuser.isfinite %i : tensor<4x?xi32>
  // CHECK: fuser.frac %{{.*}} : tensor<4x?xf32>
  %n_frac = fuser.frac %f : tensor<4x?xf32>
  // CHECK: fuser.isposinf %{{.*}} : tensor<4x?xf32>
  %n_posinf = fuser.isposinf %f : tensor<4x?xf32>
  // CHECK: fuser.isneginf %{{.*}} : tensor<4x?xi32>
  %n_neginf = fuser.isneginf %i : tensor<4x?xi32>
  // CHECK: fuser.signbit %{{.*}} : tensor<4x?xi1>
  %n_signbit = fuser.signbit %b : tensor<4x?xi1>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<2x3xbf16>, %s: tensor<bf16>, %i: tensor<2x3xi64>, %b: tensor<2x3xi1>) {
  // CHECK: fuser.add %{{.*}}, %{{.*}} : tensor<2x3xbf16>
  %0 = fuser.add %a, %a : tensor<2x3xbf16>
  // CHECK: fuser.sub %{{.*}}, %{{.*}} : tensor<2x3xbf16>, tensor<bf16>
  %1 = fuser.sub %a, %s : tensor<2x3xbf16>, tensor<bf16>
  // CHECK: fuser.mul %{{.*}}, %{{.*}} : tensor<bf16>, tensor<2x3xbf16>
  %2 = fuser.mul %s, %a : tensor<bf16>, tensor<2x3xbf16>
  // CHECK: fuser.div %{{.*}}, %{{.*}} : tensor<2x3xbf16>
  %3 = fuser.div %a, %a : tensor<2x3xbf16>
  // CHECK: fuser.div %{{.*}}, %{{.*}} rounding_mode = trunc : tensor<2x3xi64>
  %4 = fuser.div %i, %i rounding_mode = trunc : tensor<2x3xi64>
  // CHECK: fuser.div %{{.*}}, %{{.*}} rounding_mode = floor : tensor<2x3xbf16>
  %5 = fuser.div %a, %a rounding_mode = floor : tensor<2x3xbf16>
  // CHECK: fuser.pow
  %6 = fuser.pow %a, %s : tensor<2x3xbf16>, tensor<bf16>
  // CHECK: fuser.maximum %{{.*}}, %{{.*}} : tensor<2x3xi1>
  %7 = fuser.maximum %b, %b : tensor<2x3xi1>
  // CHECK: fuser.minimum
  %8 = fuser.minimum %a, %a : tensor<2x3xbf16>
  // CHECK: fuser.remainder
  %9 = fuser.remainder %i, %i : tensor<2x3xi64>
  // CHECK: fuser.fmod %{{.*}}, %{{.*}} : tensor<2x3xbf16>, tensor<bf16>
  %n_fmod = fuser.fmod %a, %s : tensor<2x3xbf16>, tensor<bf16>
  // CHECK: fuser.atan2
  %10 = fuser.atan2 %a, %a : tensor<2x3xbf16>
  // CHECK: fuser.eq %{{.*}}, %{{.*}} : tensor<2x3xbf16>
  %11 = fuser.eq %a, %a : tensor<2x3xbf16>
  // CHECK: fuser.ne
  %12 = fuser.ne %i, %i : tensor<2x3xi64>
  // CHECK: fuser.lt
  %13 = fuser.lt %a, %s : tensor<2x3xbf16>, tensor<bf16>
  // CHECK: fuser.le
  %14 = fuser.le %a, %a : tensor<2x3xbf16>
  // CHECK: fuser.gt
  %15 = fuser.gt %a, %a : tensor<2x3xbf16>
  // CHECK: fuser.ge
  %16 = fuser.ge %b, %b : tensor<2x3xi1>
  // CHECK: fuser.and
  %17 = fuser.and %b, %b : tensor<2x3xi1>
  // CHECK: fuser.or
  %18 = fuser.or %i, %i : tensor<2x3xi64>
  // CHECK: fuser.xor
  %19 = fuser.xor %i, %i : tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @ternary
func.func @ternary(%c: tensor<8xi1>, %x: tensor<8xf16>, %s: tensor<f16>) {
  // CHECK: fuser.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xi1>, tensor<8xf16>, tensor<f16>
  %0 = fuser.where %c, %x, %s : tensor<8xi1>, tensor<8xf16>, tensor<f16>
  // CHECK: fuser.clamp %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf16>, tensor<f16>, tensor<f16>
  %1 = fuser.clamp %x, %s, %s : tensor<8xf16>, tensor<f16>, tensor<f16>
  // CHECK: fuser.lerp
  %2 = fuser.lerp %x, %x, %s : tensor<8xf16>, tensor<8xf16>, tensor<f16>
  // CHECK: fuser.fma %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf16>
  %3 = fuser.fma %x, %x, %x : tensor<8xf16>
  return
}

// CHECK-LABEL: func.func @cast_constant_iota
func.func @cast_constant_iota(%x: tensor<8x?xbf16>) {
  // CHECK: fuser.cast %{{.*}} : tensor<8x?xbf16> to tensor<8x?xf32>
  %0 = fuser.cast %x : tensor<8x?xbf16> to tensor<8x?xf32>
  // CHECK: fuser.constant 1.500000e+00 : tensor<f32>
  %1 = fuser.constant 1.5 : tensor<f32>
  // CHECK: fuser.constant -7 : tensor<4x8xi8>
  %2 = fuser.constant -7 : tensor<4x8xi8>
  // CHECK: fuser.constant true : tensor<i1>
  %3 = fuser.constant true : tensor<i1>
  // CHECK: fuser.constant nan : tensor<bf16>
  %4 = fuser.constant nan : tensor<bf16>
  // CHECK: fuser.constant -inf : tensor<f16>
  %5 = fuser.constant -inf : tensor<f16>
  // CHECK: fuser.constant 0x7FC00001 : tensor<f32>
  %6 = fuser.constant 0x7FC00001 : tensor<f32>
  // CHECK: fuser.constant -9223372036854775808 : tensor<i64>
  %7 = fuser.constant -9223372036854775808 : tensor<i64>
  // CHECK: fuser.constant 2.000000e+00 : tensor<?xf64>
  %8 = fuser.constant 2 : tensor<?xf64>
  // CHECK: fuser.iota dim = 1 : tensor<4x8xi64>
  %9 = fuser.iota dim = 1 : tensor<4x8xi64>
  // CHECK: fuser.size %{{.*}} dim = 1 : tensor<8x?xbf16> -> tensor<f32>
  %10 = fuser.size %x dim = 1 : tensor<8x?xbf16> -> tensor<f32>
  // CHECK: fuser.size %{{.*}} dim = 0 : tensor<8x?xbf16> -> tensor<i32>
  %11 = fuser.size %x dim = 0 : tensor<8x?xbf16> -> tensor<i32>
  return
}

// The fp8 scaling composites.
// CHECK-LABEL: func.func @fp8_scaling
func.func @fp8_scaling(%x: tensor<?x256xbf16>, %s: tensor<?x1xf32>) {
  // CHECK: fuser.quantize %{{.*}} tensor : tensor<?x256xbf16> -> (tensor<?x256xf8E5M2>, tensor<f32>, tensor<f32>)
  %0:3 = fuser.quantize %x tensor : tensor<?x256xbf16> -> (tensor<?x256xf8E5M2>, tensor<f32>, tensor<f32>)
  // CHECK: fuser.quantize %{{.*}} row : tensor<?x256xbf16> -> (tensor<?x256xf8E4M3FN>, tensor<?x1xf32>, tensor<?x1xf32>)
  %1:3 = fuser.quantize %x row : tensor<?x256xbf16> -> (tensor<?x256xf8E4M3FN>, tensor<?x1xf32>, tensor<?x1xf32>)
  // CHECK: fuser.quantize %{{.*}} block 32 : tensor<?x256xbf16> -> (tensor<?x256xf8E4M3FN>, tensor<?x8xf8E8M0FNU>, tensor<?x8xf32>)
  %2:3 = fuser.quantize %x block 32 : tensor<?x256xbf16> -> (tensor<?x256xf8E4M3FN>, tensor<?x8xf8E8M0FNU>, tensor<?x8xf32>)
  // CHECK: fuser.scaled_cast %{{.*}}, %{{.*}} : (tensor<?x256xbf16>, tensor<?x1xf32>) -> (tensor<?x256xf8E4M3FN>, tensor<?x1xf32>)
  %3:2 = fuser.scaled_cast %x, %s : (tensor<?x256xbf16>, tensor<?x1xf32>) -> (tensor<?x256xf8E4M3FN>, tensor<?x1xf32>)
  return
}

// fp8 values are cast, with or without saturate, and moved.
// CHECK-LABEL: func.func @fp8
func.func @fp8(%x: tensor<8x?xf32>, %y: tensor<8x4xf8E5M2>) {
  // CHECK: fuser.cast %{{.*}} saturate : tensor<8x?xf32> to tensor<8x?xf8E4M3FN>
  %0 = fuser.cast %x saturate : tensor<8x?xf32> to tensor<8x?xf8E4M3FN>
  // CHECK: fuser.cast %{{.*}} : tensor<8x?xf32> to tensor<8x?xf8E5M2>
  %1 = fuser.cast %x : tensor<8x?xf32> to tensor<8x?xf8E5M2>
  // CHECK: fuser.cast %{{.*}} : tensor<8x?xf8E4M3FN> to tensor<8x?xbf16>
  %2 = fuser.cast %0 : tensor<8x?xf8E4M3FN> to tensor<8x?xbf16>
  // CHECK: fuser.permute %{{.*}} perm = [1, 0] : tensor<8x4xf8E5M2> -> tensor<4x8xf8E5M2>
  %3 = fuser.permute %y perm = [1, 0] : tensor<8x4xf8E5M2> -> tensor<4x8xf8E5M2>
  // CHECK: fuser.concat
  %4 = fuser.concat %y, %y dim = 1 : tensor<8x4xf8E5M2>, tensor<8x4xf8E5M2> -> tensor<8x8xf8E5M2>
  return
}

// Bits: reinterpretation and shifts.
// CHECK-LABEL: func.func @bits
func.func @bits(%x: tensor<8xf32>, %i: tensor<8xi32>, %q: tensor<8xf8E4M3FN>) {
  // CHECK: fuser.bitcast %{{.*}} : tensor<8xf32> to tensor<8xi32>
  %0 = fuser.bitcast %x : tensor<8xf32> to tensor<8xi32>
  // CHECK: fuser.bitcast %{{.*}} : tensor<8xf8E4M3FN> to tensor<8xi8>
  %1 = fuser.bitcast %q : tensor<8xf8E4M3FN> to tensor<8xi8>
  // CHECK: fuser.shl %{{.*}}, %{{.*}} : tensor<8xi32>
  %2 = fuser.shl %0, %i : tensor<8xi32>
  // CHECK: fuser.shr %{{.*}}, %{{.*}} : tensor<8xi32>
  %3 = fuser.shr %0, %i : tensor<8xi32>
  return
}

// CHECK-LABEL: func.func @broadcast_reductions
func.func @broadcast_reductions(%x: tensor<8x1xf32>, %y: tensor<8x?xf32>, %i: tensor<8x16xi32>) {
  // CHECK: fuser.broadcast %{{.*}} dims = [0, 2] : tensor<8x1xf32> -> tensor<8x4x16xf32>
  %0 = fuser.broadcast %x dims = [0, 2] : tensor<8x1xf32> -> tensor<8x4x16xf32>
  // CHECK: fuser.sum %{{.*}} dims = [1] : tensor<8x?xf32> -> tensor<8xf32>
  %1 = fuser.sum %y dims = [1] : tensor<8x?xf32> -> tensor<8xf32>
  // CHECK: fuser.prod %{{.*}} dims = [1, 0] keepdim = true : tensor<8x16xi32> -> tensor<1x1xi32>
  %2 = fuser.prod %i dims = [1, 0] keepdim = true : tensor<8x16xi32> -> tensor<1x1xi32>
  // CHECK: fuser.max %{{.*}} dims = [0] : tensor<8x16xi32> -> tensor<16xi32>
  %3 = fuser.max %i dims = [0] : tensor<8x16xi32> -> tensor<16xi32>
  // CHECK: fuser.min
  %4 = fuser.min %y dims = [1] : tensor<8x?xf32> -> tensor<8xf32>
  // CHECK: fuser.mean
  %5 = fuser.mean %y dims = [1] keepdim = true : tensor<8x?xf32> -> tensor<8x1xf32>
  // CHECK: fuser.any %{{.*}} dims = [1] : tensor<8x16xi32> -> tensor<8xi1>
  %6 = fuser.any %i dims = [1] : tensor<8x16xi32> -> tensor<8xi1>
  // CHECK: fuser.all
  %7 = fuser.all %y dims = [0, 1] : tensor<8x?xf32> -> tensor<i1>
  // CHECK: fuser.var_mean %{{.*}} dims = [1] : tensor<8x?xf32> -> tensor<8xf32>, tensor<8xf32>
  %8:2 = fuser.var_mean %y dims = [1] : tensor<8x?xf32> -> tensor<8xf32>, tensor<8xf32>
  // CHECK: fuser.var_mean %{{.*}} dims = [1] correction = 0 keepdim = true
  %9:2 = fuser.var_mean %y dims = [1] correction = 0 keepdim = true : tensor<8x?xf32> -> tensor<8x1xf32>, tensor<8x1xf32>
  // (either order of the two; printed correction first, defaults left out)
  // CHECK: fuser.var_mean %{{.*}} dims = [1] correction = 2 keepdim = true
  %v2:2 = fuser.var_mean %y dims = [1] keepdim = true correction = 2 : tensor<8x?xf32> -> tensor<8x1xf32>, tensor<8x1xf32>
  // CHECK: fuser.var_mean %{{.*}} dims = [1] keepdim = true :
  %v3:2 = fuser.var_mean %y dims = [1] keepdim = true correction = 1 : tensor<8x?xf32> -> tensor<8x1xf32>, tensor<8x1xf32>
  return
}

// CHECK-LABEL: func.func @shape_ops
func.func @shape_ops(%x: tensor<2x3x4xf32>, %d: tensor<?x4xf32>, %v: tensor<f32>) {
  // CHECK: fuser.reshape %{{.*}} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %0 = fuser.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: fuser.reshape %{{.*}} : tensor<?x4xf32> -> tensor<?xf32>
  %1 = fuser.reshape %d : tensor<?x4xf32> -> tensor<?xf32>
  // CHECK: fuser.permute %{{.*}} perm = [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %2 = fuser.permute %x perm = [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  // CHECK: fuser.slice %{{.*}} start = [0, 1, 0] limit = [2, 3, 4] step = [1, 1, 3] : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  %3 = fuser.slice %x start = [0, 1, 0] limit = [2, 3, 4] step = [1, 1, 3] : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  // To the end (INT64_MAX): a dynamic dim stays dynamic, a static one ends at its size.
  // CHECK: fuser.slice %{{.*}} start = [1, 1] limit = [9223372036854775807, 9223372036854775807] step = [2, 2] : tensor<?x4xf32> -> tensor<?x2xf32>
  %s2 = fuser.slice %d start = [1, 1] limit = [9223372036854775807, 9223372036854775807] step = [2, 2] : tensor<?x4xf32> -> tensor<?x2xf32>
  // CHECK: fuser.pad %{{.*}}, %{{.*}} low = [1, 0] high = [0, 2] : tensor<?x4xf32>, tensor<f32> -> tensor<?x6xf32>
  %4 = fuser.pad %d, %v low = [1, 0] high = [0, 2] : tensor<?x4xf32>, tensor<f32> -> tensor<?x6xf32>
  // CHECK: fuser.concat %{{.*}}, %{{.*}} dim = 0 : tensor<?x4xf32>, tensor<6x4xf32> -> tensor<?x4xf32>
  %5 = fuser.concat %d, %0 dim = 0 : tensor<?x4xf32>, tensor<6x4xf32> -> tensor<?x4xf32>
  // CHECK: fuser.concat %{{.*}}, %{{.*}} dim = 1 : tensor<6x4xf32>, tensor<6x4xf32> -> tensor<6x8xf32>
  %6 = fuser.concat %0, %0 dim = 1 : tensor<6x4xf32>, tensor<6x4xf32> -> tensor<6x8xf32>
  return
}

// CHECK-LABEL: func.func @composites
func.func @composites(%x: tensor<8x?xbf16>, %w: tensor<?xbf16>, %f: tensor<2x8x16xf32>, %g: tensor<8x16xf32>) {
  // CHECK: fuser.softmax %{{.*}} dim = 1 : tensor<8x?xbf16>
  %0 = fuser.softmax %x dim = 1 : tensor<8x?xbf16>
  // CHECK: fuser.log_softmax %{{.*}} dim = 0 : tensor<8x?xbf16>
  %1 = fuser.log_softmax %x dim = 0 : tensor<8x?xbf16>
  // CHECK: fuser.layer_norm %{{.*}} weight %{{.*}} bias %{{.*}} dims = [1] eps = 1.000000e-05 : (tensor<8x?xbf16>, tensor<?xbf16>, tensor<?xbf16>) -> (tensor<8x?xbf16>, tensor<8x1xf32>, tensor<8x1xf32>)
  %2:3 = fuser.layer_norm %x weight %w bias %w dims = [1] eps = 1.0e-05
      : (tensor<8x?xbf16>, tensor<?xbf16>, tensor<?xbf16>) -> (tensor<8x?xbf16>, tensor<8x1xf32>, tensor<8x1xf32>)
  // CHECK: fuser.layer_norm %{{.*}} dims = [1, 2] eps = 1.000000e-05 : (tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  %3:3 = fuser.layer_norm %f dims = [1, 2] eps = 1.0e-05
      : (tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  // CHECK: fuser.layer_norm %{{.*}} bias %{{.*}} dims = [1, 2]
  %4:3 = fuser.layer_norm %f bias %g dims = [1, 2] eps = 1.0e-05
      : (tensor<2x8x16xf32>, tensor<8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  // CHECK: fuser.rms_norm %{{.*}} weight %{{.*}} dims = [1] eps = 9.9999999999999995E-7 : (tensor<8x?xbf16>, tensor<?xbf16>) -> tensor<8x?xbf16>
  %5 = fuser.rms_norm %x weight %w dims = [1] eps = 1.0e-06 : (tensor<8x?xbf16>, tensor<?xbf16>) -> tensor<8x?xbf16>
  return
}

// CHECK-LABEL: func.func @random
func.func @random(%s: tensor<i64>, %o: tensor<i64>, %x: tensor<?x64xbf16>, %p: tensor<f32>) {
  // CHECK: fuser.rand %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %0 = fuser.rand %s, %o : tensor<4x8xf32>
  // CHECK: fuser.rand %{{.*}}, %{{.*}} like %{{.*}} : tensor<?x64xbf16> : tensor<?x64xi64>
  %1 = fuser.rand %s, %o like %x : tensor<?x64xbf16> : tensor<?x64xi64>
  // CHECK: fuser.randn %{{.*}}, %{{.*}} : tensor<16xf64>
  %2 = fuser.randn %s, %o : tensor<16xf64>
  // CHECK: fuser.bernoulli %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %3 = fuser.bernoulli %0, %s, %o : tensor<4x8xf32>
  // CHECK: fuser.dropout %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x64xbf16>, tensor<f32> -> tensor<?x64xbf16>, tensor<?x64xi1>
  %4:2 = fuser.dropout %x, %p, %s, %o : tensor<?x64xbf16>, tensor<f32> -> tensor<?x64xbf16>, tensor<?x64xi1>
  return
}

// CHECK-LABEL: func.func @indexing
func.func @indexing(%x: tensor<4x10xbf16>, %i: tensor<4x3xi64>, %t: tensor<?x64xf32>, %ids: tensor<?xi32>) {
  // CHECK: fuser.gather %{{.*}}, %{{.*}} dim = 1 : tensor<4x10xbf16>, tensor<4x3xi64> -> tensor<4x3xbf16>
  %0 = fuser.gather %x, %i dim = 1 : tensor<4x10xbf16>, tensor<4x3xi64> -> tensor<4x3xbf16>
  // CHECK: fuser.index_select %{{.*}}, %{{.*}} dim = 0 : tensor<?x64xf32>, tensor<?xi32> -> tensor<?x64xf32>
  %1 = fuser.index_select %t, %ids dim = 0 : tensor<?x64xf32>, tensor<?xi32> -> tensor<?x64xf32>
  return
}

// CHECK-LABEL: func.func @scans
func.func @scans(%x: tensor<4x?xbf16>, %i: tensor<7xi64>) {
  // CHECK: fuser.cumsum %{{.*}} dim = 1 : tensor<4x?xbf16>
  %0 = fuser.cumsum %x dim = 1 : tensor<4x?xbf16>
  // CHECK: fuser.cumsum %{{.*}} dim = 0 : tensor<7xi64>
  %1 = fuser.cumsum %i dim = 0 : tensor<7xi64>
  // CHECK: fuser.cumprod %{{.*}} dim = 0 : tensor<4x?xbf16>
  %2 = fuser.cumprod %x dim = 0 : tensor<4x?xbf16>
  // CHECK: %{{.*}}, %{{.*}} = fuser.cummax %{{.*}} dim = 1 : tensor<4x?xbf16> -> tensor<4x?xi64>
  %3, %4 = fuser.cummax %x dim = 1 : tensor<4x?xbf16> -> tensor<4x?xi64>
  // CHECK: %{{.*}}, %{{.*}} = fuser.cummin %{{.*}} dim = 0 : tensor<7xi64> -> tensor<7xi64>
  %5, %6 = fuser.cummin %i dim = 0 : tensor<7xi64> -> tensor<7xi64>
  return
}

// CHECK-LABEL: func.func @cummax_bool
func.func @cummax_bool(%b: tensor<3x5xi1>) -> tensor<3x5xi1> {
  // CHECK: fuser.cummax %{{.*}} dim = 0 : tensor<3x5xi1> -> tensor<3x5xi64>
  %v, %i = fuser.cummax %b dim = 0 : tensor<3x5xi1> -> tensor<3x5xi64>
  return %v : tensor<3x5xi1>
}

// CHECK-LABEL: func.func @scatters
func.func @scatters(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>, %s: tensor<4x5xf32>,
                    %t: tensor<?x64xbf16>, %ids: tensor<?xi32>, %g: tensor<?x64xbf16>) {
  // CHECK: fuser.scatter_add %{{.*}}, %{{.*}}, %{{.*}} dim = 1 : tensor<4x10xf32>, tensor<4x3xi64>, tensor<4x5xf32>
  %0 = fuser.scatter_add %x, %i, %s dim = 1 : tensor<4x10xf32>, tensor<4x3xi64>, tensor<4x5xf32>
  // CHECK: fuser.index_add %{{.*}}, %{{.*}}, %{{.*}} dim = 0 : tensor<?x64xbf16>, tensor<?xi32>, tensor<?x64xbf16>
  %1 = fuser.index_add %t, %ids, %g dim = 0 : tensor<?x64xbf16>, tensor<?xi32>, tensor<?x64xbf16>
  return
}
