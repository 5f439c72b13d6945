// x.t().reshape(...) repeated: each reshape's index is a floordiv and mod
// of the linear index the permute before it made, and MLIR's simplification
// pulls constants out of the divisions, leaving terms that are negative
// for some elements inside them (permute-reshape-chain.test). The values
// start from an iota (x, finite, times 0), so the result names each
// element's source.
func.func @chain4x2(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %i = fuser.iota dim = 0 : tensor<8xf32>
  %s = fuser.reshape %i : tensor<8xf32> -> tensor<4x2xf32>
  %zero = fuser.constant 0.0 : tensor<f32>
  %x0 = fuser.mul %x, %zero : tensor<4x2xf32>, tensor<f32>
  %a = fuser.add %s, %x0 : tensor<4x2xf32>
  %p0 = fuser.permute %a perm = [1, 0] : tensor<4x2xf32> -> tensor<2x4xf32>
  %r0 = fuser.reshape %p0 : tensor<2x4xf32> -> tensor<4x2xf32>
  %p1 = fuser.permute %r0 perm = [1, 0] : tensor<4x2xf32> -> tensor<2x4xf32>
  %r1 = fuser.reshape %p1 : tensor<2x4xf32> -> tensor<4x2xf32>
  %p2 = fuser.permute %r1 perm = [1, 0] : tensor<4x2xf32> -> tensor<2x4xf32>
  %r2 = fuser.reshape %p2 : tensor<2x4xf32> -> tensor<4x2xf32>
  %p3 = fuser.permute %r2 perm = [1, 0] : tensor<4x2xf32> -> tensor<2x4xf32>
  %r3 = fuser.reshape %p3 : tensor<2x4xf32> -> tensor<4x2xf32>
  return %r2, %r3 : tensor<4x2xf32>, tensor<4x2xf32>
}

func.func @chain8x4(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %i = fuser.iota dim = 0 : tensor<32xf32>
  %s = fuser.reshape %i : tensor<32xf32> -> tensor<8x4xf32>
  %zero = fuser.constant 0.0 : tensor<f32>
  %x0 = fuser.mul %x, %zero : tensor<8x4xf32>, tensor<f32>
  %a = fuser.add %s, %x0 : tensor<8x4xf32>
  %p0 = fuser.permute %a perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %r0 = fuser.reshape %p0 : tensor<4x8xf32> -> tensor<8x4xf32>
  %p1 = fuser.permute %r0 perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %r1 = fuser.reshape %p1 : tensor<4x8xf32> -> tensor<8x4xf32>
  %p2 = fuser.permute %r1 perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  return %p2 : tensor<4x8xf32>
}
