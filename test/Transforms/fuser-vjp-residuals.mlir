// fuser-vjp residuals=1: @f_fwd returns f's results and the residuals it
// computes; @f_bwd takes the inputs it reads (again, under their names),
// the residuals and the cotangents. Elementwise work is recomputed; the
// results of reductions and composites are saved.
// RUN: fuser-opt %s -split-input-file --fuser-vjp=residuals=1 | FileCheck %s

// tanh(x * w) is recomputed from x and w: no residual is computed.
// CHECK-LABEL: func.func @f_fwd(
// CHECK-SAME: -> (tensor<?x?xf32> {fuser.name = "y"}) {
// CHECK-LABEL: func.func @f_bwd(
// CHECK-SAME: %{{.*}}: tensor<?x?xf32> {fuser.name = "x"}, %{{.*}}: tensor<?xf32> {fuser.name = "w"}, %{{.*}}: tensor<?x?xf32> {fuser.cotangent, fuser.name = "grad_y"})
// CHECK-SAME: -> (tensor<?x?xf32> {fuser.name = "grad_x", fuser.same_shape_as = 0 : i64}, tensor<?xf32> {fuser.name = "grad_w", fuser.same_shape_as = 1 : i64})
// CHECK: fuser.tanh
// CHECK-NOT: func.func @f_vjp
func.func @f(%x: tensor<?x?xf32> {fuser.name = "x"}, %w: tensor<?xf32> {fuser.name = "w"})
    -> (tensor<?x?xf32> {fuser.name = "y"}) {
  %wb = fuser.broadcast %w dims = [1] : tensor<?xf32> -> tensor<?x?xf32>
  %m = fuser.mul %x, %wb : tensor<?x?xf32>
  %t = fuser.tanh %m : tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// -----

// softmax saves y, which is its result: returned once, taken as "result0".
// CHECK-LABEL: func.func @softmax_fwd(
// CHECK-SAME: -> tensor<4x?xbf16>
// CHECK-LABEL: func.func @softmax_bwd(
// CHECK-SAME: %{{.*}}: tensor<4x?xbf16> {fuser.name = "result0"}, %{{.*}}: tensor<4x?xbf16> {fuser.cotangent, fuser.name = "grad_result0"}
// CHECK-NOT: fuser.softmax
// CHECK: return
func.func @softmax(%x: tensor<4x?xbf16>) -> tensor<4x?xbf16> {
  %y = fuser.softmax %x dim = 1 : tensor<4x?xbf16>
  return %y : tensor<4x?xbf16>
}

// -----

// layer_norm saves x and w (inputs) and the row statistics, as PyTorch does.
// CHECK-LABEL: func.func @ln_fwd(
// CHECK-SAME: -> (tensor<?x64xbf16>, tensor<?x1xf32> {fuser.name = "residual0"}, tensor<?x1xf32> {fuser.name = "residual1"})
// CHECK-LABEL: func.func @ln_bwd(
// CHECK-SAME: {fuser.name = "arg0"}, %{{.*}}: tensor<64xbf16> {fuser.name = "arg1"}, %{{.*}}: tensor<?x1xf32> {fuser.name = "residual0"}, %{{.*}}: tensor<?x1xf32> {fuser.name = "residual1"}, %{{.*}}: tensor<?x64xbf16> {fuser.cotangent, fuser.name = "grad_result0"})
// CHECK-NOT: fuser.layer_norm
// CHECK: return
func.func @ln(%x: tensor<?x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>) -> tensor<?x64xbf16> {
  %y, %m, %r = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<?x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> (tensor<?x64xbf16>, tensor<?x1xf32>, tensor<?x1xf32>)
  return %y : tensor<?x64xbf16>
}

// -----

// The gradient of a sum: a broadcast of the cotangent, which has no dim of
// the input's; the input is passed for its shape (shape_of_x), not read.
// CHECK-LABEL: func.func @rowsum_bwd(
// CHECK-SAME: %{{.*}}: tensor<?xf32> {fuser.cotangent, fuser.name = "grad_s"}, %{{.*}}: tensor<?x?xf32> {fuser.name = "shape_of_x"})
// CHECK-SAME: -> (tensor<?x?xf32> {fuser.name = "grad_x", fuser.same_shape_as = 1 : i64})
func.func @rowsum(%x: tensor<?x?xf32> {fuser.name = "x"}) -> (tensor<?xf32> {fuser.name = "s"}) {
  %s = fuser.sum %x dims = [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}
