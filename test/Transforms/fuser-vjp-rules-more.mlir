// The other rules of fuser-vjp as the graphs they write: ternary ops, a
// cast, reductions, shape ops, indexing, composites (whole rules), dropout
// (the mask the recomputed forward draws again) and cumprod. Values are
// checked against PyTorch by oracle/autodiff (docs/autodiff.md).
// RUN: fuser-opt %s --fuser-vjp | FileCheck %s

func.func @where(%c: tensor<8xi1>, %a: tensor<8xf32>, %b: tensor<f32>) -> tensor<8xf32> {
  %y = fuser.where %c, %a, %b : tensor<8xi1>, tensor<8xf32>, tensor<f32>
  return %y : tensor<8xf32>
}

func.func @clamp(%x: tensor<8xf32>, %lo: tensor<8xf32>, %hi: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.clamp %x, %lo, %hi : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @lerp(%s: tensor<8xf32>, %e: tensor<8xf32>, %w: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.lerp %s, %e, %w : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @fma(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<f32>) -> tensor<8xf32> {
  %y = fuser.fma %a, %b, %c : tensor<8xf32>, tensor<8xf32>, tensor<f32>
  return %y : tensor<8xf32>
}

func.func @cast(%x: tensor<8xbf16>) -> tensor<8xf32> {
  %y = fuser.cast %x : tensor<8xbf16> to tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @mean(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %y = fuser.mean %x dims = [1] : tensor<4x?xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @max(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %y = fuser.max %x dims = [1] keepdim = true : tensor<4x8xf32> -> tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}

func.func @var_mean(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %v, %m = fuser.var_mean %x dims = [1] correction = 1 : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xf32>
  return %v, %m : tensor<4xf32>, tensor<4xf32>
}

func.func @reshape_permute(%x: tensor<4x6xf32>) -> tensor<6x2x2xf32> {
  %r = fuser.reshape %x : tensor<4x6xf32> -> tensor<2x2x6xf32>
  %p = fuser.permute %r perm = [2, 0, 1] : tensor<2x2x6xf32> -> tensor<6x2x2xf32>
  return %p : tensor<6x2x2xf32>
}

func.func @concat(%a: tensor<?x3xf32>, %b: tensor<?x5xf32>) -> tensor<?x8xf32> {
  %c = fuser.concat %a, %b dim = 1 : tensor<?x3xf32>, tensor<?x5xf32> -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

func.func @gather(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>) -> tensor<4x3xf32> {
  %g = fuser.gather %x, %i dim = 1 : tensor<4x10xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}

func.func @index_select(%t: tensor<100x8xf32>, %i: tensor<5xi32>) -> tensor<5x8xf32> {
  %e = fuser.index_select %t, %i dim = 0 : tensor<100x8xf32>, tensor<5xi32> -> tensor<5x8xf32>
  return %e : tensor<5x8xf32>
}

func.func @scatter_add(%s: tensor<4x10xf32>, %i: tensor<4x3xi64>, %src: tensor<4x3xf32>) -> tensor<4x10xf32> {
  %r = fuser.scatter_add %s, %i, %src dim = 1 : tensor<4x10xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  return %r : tensor<4x10xf32>
}

func.func @index_add(%s: tensor<100x8xf32>, %i: tensor<5xi32>, %src: tensor<5x8xf32>) -> tensor<100x8xf32> {
  %r = fuser.index_add %s, %i, %src dim = 0 : tensor<100x8xf32>, tensor<5xi32>, tensor<5x8xf32>
  return %r : tensor<100x8xf32>
}

func.func @log_softmax(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %y = fuser.log_softmax %x dim = 1 : tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}

func.func @rms_norm(%x: tensor<?x64xf32>, %w: tensor<64xf32>) -> tensor<?x64xf32> {
  %y = fuser.rms_norm %x weight %w dims = [1] eps = 1.0e-06 : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

func.func @layer_norm_stats(%x: tensor<4x64xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  %y, %m, %r = fuser.layer_norm %x dims = [1] eps = 1.0e-05 : (tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %m, %r : tensor<4x1xf32>, tensor<4x1xf32>
}

func.func @dropout(%x: tensor<8x16xbf16>, %p: tensor<f32>, %seed: tensor<i64>, %off: tensor<i64>) -> tensor<8x16xbf16> {
  %y, %mask = fuser.dropout %x, %p, %seed, %off : tensor<8x16xbf16>, tensor<f32> -> tensor<8x16xbf16>, tensor<8x16xi1>
  return %y : tensor<8x16xbf16>
}

func.func @cumprod(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = fuser.cumprod %x dim = 1 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @where_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xi1>, tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xi1>, tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sum %{{[a-z0-9#]+}} dims = [0] : tensor<8xf32> -> tensor<f32>
// CHECK-NEXT: return %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>, tensor<f32>
// CHECK-LABEL: func.func @clamp_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.le %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xi1>, tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.ge %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xi1>, tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.lt %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xi1>, tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.lt %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xi1>, tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.lt %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xi1>, tensor<8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.gt %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
// CHECK-LABEL: func.func @lerp_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sub %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<f32>, tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sub %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
// CHECK-LABEL: func.func @fma_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sum %{{[a-z0-9#]+}} dims = [0] : tensor<8xf32> -> tensor<f32>
// CHECK-NEXT: return %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8xf32>, tensor<8xf32>, tensor<f32>
// CHECK-LABEL: func.func @cast_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cast %{{[a-z0-9#]+}} : tensor<8xf32> to tensor<8xbf16>
// CHECK-NEXT: return %{{[a-z0-9#]+}} : tensor<8xbf16>
// CHECK-LABEL: func.func @mean_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.size %{{[a-z0-9#]+}} dim = 1 : tensor<4x?xf32> -> tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0] : tensor<4xf32> -> tensor<4x?xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.div %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x?xf32>, tensor<f32>
// CHECK-NEXT: return %{{[a-z0-9#]+}} : tensor<4x?xf32>
// CHECK-LABEL: func.func @max_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.max %{{[a-z0-9#]+}} dims = [1] keepdim = true : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.eq %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cast %{{[a-z0-9#]+}} : tensor<4x8xi1> to tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sum %{{[a-z0-9#]+}} dims = [1] keepdim = true : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.div %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x8xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}} : tensor<4x8xf32>
// CHECK-LABEL: func.func @var_mean_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 0.285714298 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 8.000000e+00 : tensor<f32>
// CHECK-NEXT: %[[M:[a-z0-9#]+]] = fuser.mean %arg0 dims = [1] keepdim = true : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %[[M]] dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sub %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.div %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.add %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x8xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}} : tensor<4x8xf32>
// CHECK-LABEL: func.func @reshape_permute_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.permute %{{[a-z0-9#]+}} perm = [1, 2, 0] : tensor<6x2x2xf32> -> tensor<2x2x6xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.reshape %{{[a-z0-9#]+}} : tensor<2x2x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}} : tensor<4x6xf32>
// CHECK-LABEL: func.func @concat_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.pad %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} low = [0, 0] high = [0, -5] : tensor<?x8xf32>, tensor<f32> -> tensor<?x3xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.pad %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} low = [0, -3] high = [0, 0] : tensor<?x8xf32>, tensor<f32> -> tensor<?x5xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x3xf32>, tensor<?x5xf32>
// CHECK-LABEL: func.func @gather_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 0.000000e+00 : tensor<4x10xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.scatter_add %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} dim = 1 : tensor<4x10xf32>, tensor<4x3xi64>, tensor<4x3xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}} : tensor<4x10xf32>
// CHECK-LABEL: func.func @index_select_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 0.000000e+00 : tensor<100x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.index_add %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} dim = 0 : tensor<100x8xf32>, tensor<5xi32>, tensor<5x8xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}} : tensor<100x8xf32>
// CHECK-LABEL: func.func @scatter_add_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.gather %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} dim = 1 : tensor<4x10xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x10xf32>, tensor<4x3xf32>
// CHECK-LABEL: func.func @index_add_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.index_select %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} dim = 0 : tensor<100x8xf32>, tensor<5xi32> -> tensor<5x8xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<100x8xf32>, tensor<5x8xf32>
// CHECK-LABEL: func.func @log_softmax_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.log_softmax %{{[a-z0-9#]+}} dim = 1 : tensor<4x?xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sum %{{[a-z0-9#]+}} dims = [1] : tensor<4x?xf32> -> tensor<4xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0] : tensor<4xf32> -> tensor<4x?xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.exp %{{[a-z0-9#]+}} : tensor<4x?xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x?xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sub %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x?xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}} : tensor<4x?xf32>
// CHECK-LABEL: func.func @rms_norm_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 9.99999997E-7 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mean %{{[a-z0-9#]+}} dims = [1] keepdim = true : tensor<?x64xf32> -> tensor<?x1xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.add %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x1xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.rsqrt %{{[a-z0-9#]+}} : tensor<?x1xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0, 1] : tensor<?x1xf32> -> tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [1] : tensor<64xf32> -> tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mean %{{[a-z0-9#]+}} dims = [1] keepdim = true : tensor<?x64xf32> -> tensor<?x1xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0, 1] : tensor<?x1xf32> -> tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sub %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sum %{{[a-z0-9#]+}} dims = [0] : tensor<?x64xf32> -> tensor<64xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<?x64xf32>, tensor<64xf32>
// CHECK-LABEL: func.func @layer_norm_stats_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 6.400000e+01 : tensor<f32>
// CHECK-NEXT: %result, %mean, %rstd = fuser.layer_norm %{{[a-z0-9#]+}} dims = [1] eps = 1.000000e-05 : (tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %rstd dims = [0, 1] : tensor<4x1xf32> -> tensor<4x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %mean dims = [0, 1] : tensor<4x1xf32> -> tensor<4x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sub %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0, 1] : tensor<4x1xf32> -> tensor<4x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.div %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x64xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.neg %{{[a-z0-9#]+}} : tensor<4x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.div %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x64xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0, 1] : tensor<4x1xf32> -> tensor<4x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x64xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.add %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<4x64xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}} : tensor<4x64xf32>
// CHECK-LABEL: func.func @dropout_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %result, %mask = fuser.dropout %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8x16xbf16>, tensor<f32> -> tensor<8x16xbf16>, tensor<8x16xi1>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cast %{{[a-z0-9#]+}} : tensor<8x16xbf16> to tensor<8x16xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sub %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.div %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.eq %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<i1>, tensor<f32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cast %mask : tensor<8x16xi1> to tensor<8x16xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8x16xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8x16xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cast %{{[a-z0-9#]+}} : tensor<8x16xf32> to tensor<8x16xbf16>
// CHECK-NEXT: return %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} : tensor<8x16xbf16>, tensor<f32>
// CHECK-LABEL: func.func @cumprod_vjp(
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 7 : tensor<i64>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant false : tensor<i1>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cumprod %{{[a-z0-9#]+}} dim = 1 : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.eq %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cast %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xi1> to tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cumsum %{{[a-z0-9#]+}} dim = 1 {fuser.first_order} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.eq %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.eq %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xi1>, tensor<4x8xi1>, tensor<i1>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xi1>, tensor<i1>, tensor<4x8xi1>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.iota dim = 1 : tensor<4x8xi64>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sub %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<i64>, tensor<4x8xi64>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.gather %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} dim = 1 {fuser.first_order} : tensor<4x8xf32>, tensor<4x8xi64> -> tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cumsum %{{[a-z0-9#]+}} dim = 1 {fuser.first_order} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.gather %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} dim = 1 {fuser.first_order} : tensor<4x8xf32>, tensor<4x8xi64> -> tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.div %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cumprod %{{[a-z0-9#]+}} dim = 1 {fuser.first_order} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.cumprod %{{[a-z0-9#]+}} dim = 1 {fuser.first_order} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.sum %{{[a-z0-9#]+}} dims = [1] keepdim = true {fuser.first_order} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.broadcast %{{[a-z0-9#]+}} dims = [0, 1] {fuser.first_order} : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.mul %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xf32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: %{{[a-z0-9#]+}} = fuser.where %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}, %{{[a-z0-9#]+}} {fuser.first_order} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: return %{{[a-z0-9#]+}} : tensor<4x8xf32>
