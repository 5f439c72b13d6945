// fuser-vjp: @f_vjp(inputs..., cotangents...) -> (gradients...), the
// forward recomputed, each op's rule applied in reverse, simplified.
// RUN: fuser-opt %s -split-input-file --fuser-vjp | FileCheck %s
// RUN: fuser-opt %s --fuser-vjp="fusion=relu_sum wrt=0" | FileCheck %s --check-prefix=WRT

// relu's rule is threshold_backward (0 where the result is <= 0); the sum's
// gradient is a broadcast; the integer input has no gradient and the
// integer result no cotangent; the original fusion is unchanged.
// CHECK-LABEL: func.func @relu_sum(
// CHECK: return
// CHECK-LABEL: func.func @relu_sum_vjp(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32> {fuser.name = "x"}, %[[N:.*]]: tensor<4xi64>, %[[G:.*]]: tensor<4xf32> {fuser.cotangent, fuser.name = "grad_s"})
// CHECK-SAME: -> (tensor<4x?xf32> {fuser.name = "grad_x", fuser.same_shape_as = 0 : i64})
// CHECK-DAG: %[[ZERO:.*]] = fuser.constant 0.000000e+00 : tensor<f32>
// CHECK-DAG: %[[R:.*]] = fuser.relu %[[X]]
// CHECK-DAG: %[[GB:.*]] = fuser.broadcast %[[G]] dims = [0] : tensor<4xf32> -> tensor<4x?xf32>
// CHECK-DAG: %[[LE:.*]] = fuser.le %[[R]], %[[ZERO]]
// CHECK: %[[DX:.*]] = fuser.where %[[LE]], %[[ZERO]], %[[GB]]
// CHECK: return %[[DX]] : tensor<4x?xf32>
// WRT-LABEL: func.func @relu_sum_vjp(
// WRT-SAME: -> (tensor<4x?xf32> {fuser.name = "grad_x", fuser.same_shape_as = 0 : i64})
func.func @relu_sum(%x: tensor<4x?xf32> {fuser.name = "x"}, %n: tensor<4xi64>)
    -> (tensor<4xf32> {fuser.name = "s"}, tensor<4xi64>) {
  %r = fuser.relu %x : tensor<4x?xf32>
  %s = fuser.sum %r dims = [1] : tensor<4x?xf32> -> tensor<4xf32>
  return %s, %n : tensor<4xf32>, tensor<4xi64>
}

// -----

// bf16: the rule computes in f32 and rounds each gradient once; ties of
// maximum split the gradient in halves; a rank-0 operand's gradient is
// summed.
// CHECK-LABEL: func.func @max_ties_vjp(
// CHECK-DAG: %[[TWO:.*]] = fuser.constant 2.000000e+00 : tensor<f32>
// CHECK-DAG: %[[GF:.*]] = fuser.cast %{{.*}} : tensor<8xbf16> to tensor<8xf32>
// CHECK-DAG: %[[HALF:.*]] = fuser.div %[[GF]], %[[TWO]]
// CHECK-DAG: %[[TIE:.*]] = fuser.eq
// CHECK-DAG: %[[SPLIT:.*]] = fuser.where %[[TIE]], %[[HALF]], %[[GF]]
// CHECK-DAG: %[[LOSE:.*]] = fuser.lt
// CHECK-DAG: %[[DA:.*]] = fuser.where %[[LOSE]], %{{.*}}, %[[SPLIT]]
// CHECK-DAG: fuser.cast %[[DA]] : tensor<8xf32> to tensor<8xbf16>
// CHECK-DAG: %[[SUM:.*]] = fuser.sum %{{.*}} dims = [0] : tensor<8xf32> -> tensor<f32>
// CHECK-DAG: fuser.cast %[[SUM]] : tensor<f32> to tensor<bf16>
func.func @max_ties(%a: tensor<8xbf16>, %b: tensor<bf16>) -> tensor<8xbf16> {
  %m = fuser.maximum %a, %b : tensor<8xbf16>, tensor<bf16>
  return %m : tensor<8xbf16>
}

// -----

// No path from a cotangent: a zero gradient, one constant per result.
// CHECK-LABEL: func.func @unused_vjp(
// CHECK: %[[Z:.*]] = fuser.constant 0.000000e+00 : tensor<?xf32>
// CHECK: return %[[Z]], %[[Z]]
func.func @unused(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %f = fuser.floor %x : tensor<?xf32>
  return %f : tensor<?xf32>
}

// -----

// A value with two uses: their gradients add up.
// CHECK-LABEL: func.func @square_vjp(
// CHECK-SAME: %[[X:.*]]: tensor<16xf32>, %[[G:.*]]: tensor<16xf32>
// CHECK-DAG: %[[A:.*]] = fuser.mul %[[G]], %[[X]]
// CHECK: %[[S:.*]] = fuser.add %[[A]], %[[A]]
// CHECK: return %[[S]]
func.func @square(%x: tensor<16xf32>) -> tensor<16xf32> {
  %y = fuser.mul %x, %x : tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// The composites have whole rules: softmax's is y * (g - sum(g * y)), and
// layer_norm's the compact backward (dx from two row means, dw and db as
// column sums), not the chain of their primitives' rules.
// CHECK-LABEL: func.func @softmax_vjp(
// CHECK: %[[Y:.*]] = fuser.softmax %{{.*}} dim = 1
// CHECK: %[[GY:.*]] = fuser.mul %{{.*}}, %[[Y]]
// CHECK: %[[S:.*]] = fuser.sum %[[GY]] dims = [1]
// CHECK: %[[SB:.*]] = fuser.broadcast %[[S]] dims = [0]
// CHECK: %[[D:.*]] = fuser.sub %{{.*}}, %[[SB]]
// CHECK: fuser.mul %[[Y]], %[[D]]
// CHECK-NOT: fuser.exp
func.func @softmax(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %y = fuser.softmax %x dim = 1 : tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_vjp(
// CHECK-SAME: -> (tensor<?x64xbf16> {fuser.name = "grad_arg0", fuser.same_shape_as = 0 : i64}, tensor<64xbf16> {fuser.name = "grad_arg1", fuser.same_shape_as = 1 : i64}, tensor<64xbf16> {fuser.name = "grad_arg2", fuser.same_shape_as = 2 : i64})
// CHECK: fuser.layer_norm
// CHECK-COUNT-2: fuser.mean %{{.*}} dims = [1] keepdim = true : tensor<?x64xf32> -> tensor<?x1xf32>
// CHECK-COUNT-2: fuser.sum %{{.*}} dims = [0] : tensor<?x64xf32> -> tensor<64xf32>
func.func @layer_norm(%x: tensor<?x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>) -> tensor<?x64xbf16> {
  %y, %m, %r = fuser.layer_norm %x weight %w bias %b dims = [1] eps = 1.0e-05
      : (tensor<?x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> (tensor<?x64xbf16>, tensor<?x1xf32>, tensor<?x1xf32>)
  return %y : tensor<?x64xbf16>
}

// -----

// slice with a step: the gradient interleaves zeros, then pads back; pad's
// is a pad by the negated amounts (cropping what was padded).
// CHECK-LABEL: func.func @slice_pad_vjp(
// CHECK: fuser.pad %{{.*}} low = [-1] high = [-2] : tensor<8xf32>, tensor<f32> -> tensor<5xf32>
// CHECK: fuser.reshape %{{.*}} : tensor<5xf32> -> tensor<5x1xf32>
// CHECK: fuser.pad %{{.*}} low = [0, 0] high = [0, 1] : tensor<5x1xf32>, tensor<f32> -> tensor<5x2xf32>
// CHECK: fuser.reshape %{{.*}} : tensor<5x2xf32> -> tensor<10xf32>
// CHECK: fuser.pad %{{.*}} low = [1] high = [0] : tensor<10xf32>, tensor<f32> -> tensor<11xf32>
func.func @slice_pad(%x: tensor<11xf32>) -> tensor<8xf32> {
  %s = fuser.slice %x start = [1] limit = [11] step = [2] : tensor<11xf32> -> tensor<5xf32>
  %z = fuser.constant 0.0 : tensor<f32>
  %p = fuser.pad %s, %z low = [1] high = [2] : tensor<5xf32>, tensor<f32> -> tensor<8xf32>
  return %p : tensor<8xf32>
}

// -----

// prod: g * (y / x) where no element of x is 0 (a sum of x == 0 over
// every dim), else the product of the others (cumprods from the front and
// the back); cumsum: the reversed cumsum (a flip, a cumsum, a flip: gathers
// at size - 1 - i); cummax: a scatter_add of g at the indices.
// CHECK-LABEL: func.func @prod_scan_vjp(
// The rule's ops are marked first-order only (fuser.first_order:
// docs/autodiff.md, "Second order").
// CHECK-DAG: fuser.sum %{{.*}} dims = [0, 1] {fuser.first_order} : tensor<4x8xf32> -> tensor<f32>
// CHECK-DAG: fuser.cumprod %{{.*}} dim = 1 {fuser.first_order} : tensor<4x8xf32>
// CHECK-DAG: fuser.gather
// CHECK-DAG: fuser.cumsum
// CHECK-DAG: fuser.scatter_add
func.func @prod_scan(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %p = fuser.prod %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %c = fuser.cumsum %x dim = 1 : tensor<4x8xf32>
  %m, %i = fuser.cummax %x dim = 1 : tensor<4x8xf32> -> tensor<4x8xi64>
  return %p, %c, %m : tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// reshape: the gradient goes back to the input's type, its dims given by its
// uses and the result's fuser.same_shape_as (fuser.dims_from_uses), not
// guessed from `[?]` by the reshape rule (which would keep dim 0 of [?] and
// make dim 1 the rest: a false launch error).
// CHECK-LABEL: func.func @merge_vjp(
// CHECK: fuser.reshape %{{.*}} {fuser.dims_from_uses} : tensor<?xf32> -> tensor<?x?xf32>
func.func @merge(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = fuser.reshape %x : tensor<?x?xf32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}
