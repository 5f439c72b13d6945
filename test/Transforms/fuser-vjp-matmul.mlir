// fuser-vjp's rules for the library calls, as the graphs they write: the
// gradients of matmul and linear are matmuls (grad_a = g @ b^T, grad_b =
// a^T @ g), summed over the batch dims an operand was broadcast along, with
// vectors as 1 x k rows and k x 1 columns; linear's bias gradient is the sum
// of g over the rows, in f32 for bf16. Values are checked against PyTorch
// by oracle/autodiff (autodiff/matmul/*).
// RUN: fuser-opt %s --fuser-vjp | FileCheck %s

// CHECK-LABEL: func.func @lin_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<?x9xbf16>, %[[W:.*]]: tensor<4x9xbf16>, %{{.*}}: tensor<4xbf16>, %[[G:.*]]: tensor<?x4xbf16> {fuser.cotangent, fuser.name = "grad_result0"})
// CHECK: %[[GX:.*]] = fuser.matmul %[[G]], %[[W]] : (tensor<?x4xbf16>, tensor<4x9xbf16>) -> tensor<?x9xbf16>
// CHECK: %[[GT:.*]] = fuser.permute %[[G]] perm = [1, 0] : tensor<?x4xbf16> -> tensor<4x?xbf16>
// CHECK: %[[GW:.*]] = fuser.matmul %[[GT]], %[[X]] : (tensor<4x?xbf16>, tensor<?x9xbf16>) -> tensor<4x9xbf16>
// CHECK: %[[GF:.*]] = fuser.cast %[[G]] : tensor<?x4xbf16> to tensor<?x4xf32>
// CHECK: %[[S:.*]] = fuser.sum %[[GF]] dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
// CHECK: %[[GB:.*]] = fuser.cast %[[S]] : tensor<4xf32> to tensor<4xbf16>
// CHECK: return %[[GX]], %[[GW]], %[[GB]]
func.func @lin(%x: tensor<?x9xbf16>, %w: tensor<4x9xbf16>, %b: tensor<4xbf16>) -> tensor<?x4xbf16> {
  %0 = fuser.linear %x, %w bias %b : (tensor<?x9xbf16>, tensor<4x9xbf16>, tensor<4xbf16>) -> tensor<?x4xbf16>
  return %0 : tensor<?x4xbf16>
}

// A lhs broadcast along the rhs's batch: its gradient sums over the batch,
// as one product over the batch folded into the contraction (PyTorch's
// fold: one accumulation, one rounding), g as [M, batch * N] and b^T as
// [batch * N, K].
// CHECK-LABEL: func.func @mm_vjp
// CHECK-SAME: (%[[A:.*]]: tensor<5x7xf32>, %[[B:.*]]: tensor<4x7x3xf32>, %[[G:.*]]: tensor<4x5x3xf32>
// CHECK: %[[GP:.*]] = fuser.permute %[[G]] perm = [1, 0, 2] : tensor<4x5x3xf32> -> tensor<5x4x3xf32>
// CHECK: %[[GM:.*]] = fuser.reshape %[[GP]] : tensor<5x4x3xf32> -> tensor<5x12xf32>
// CHECK: %[[BT:.*]] = fuser.permute %[[B]] perm = [0, 2, 1] : tensor<4x7x3xf32> -> tensor<4x3x7xf32>
// CHECK: %[[BM:.*]] = fuser.reshape %[[BT]] : tensor<4x3x7xf32> -> tensor<12x7xf32>
// CHECK: %[[GA:.*]] = fuser.matmul %[[GM]], %[[BM]] : (tensor<5x12xf32>, tensor<12x7xf32>) -> tensor<5x7xf32>
// CHECK: %[[AT:.*]] = fuser.permute %[[A]] perm = [1, 0] : tensor<5x7xf32> -> tensor<7x5xf32>
// CHECK: %[[GB:.*]] = fuser.matmul %[[AT]], %[[G]] : (tensor<7x5xf32>, tensor<4x5x3xf32>) -> tensor<4x7x3xf32>
// CHECK: return %[[GA]], %[[GB]]
func.func @mm(%a: tensor<5x7xf32>, %b: tensor<4x7x3xf32>) -> tensor<4x5x3xf32> {
  %0 = fuser.matmul %a, %b : (tensor<5x7xf32>, tensor<4x7x3xf32>) -> tensor<4x5x3xf32>
  return %0 : tensor<4x5x3xf32>
}

// Matrix-vector: the vector is a 7 x 1 column, g a 5 x 1 column.
// CHECK-LABEL: func.func @mv_vjp
// CHECK-SAME: (%[[A:.*]]: tensor<5x7xf32>, %[[V:.*]]: tensor<7xf32>, %[[G:.*]]: tensor<5xf32>
// CHECK: %[[VC:.*]] = fuser.reshape %[[V]] : tensor<7xf32> -> tensor<7x1xf32>
// CHECK: %[[GC:.*]] = fuser.reshape %[[G]] : tensor<5xf32> -> tensor<5x1xf32>
// CHECK: %[[VR:.*]] = fuser.permute %[[VC]] perm = [1, 0] : tensor<7x1xf32> -> tensor<1x7xf32>
// CHECK: %[[GA:.*]] = fuser.matmul %[[GC]], %[[VR]] : (tensor<5x1xf32>, tensor<1x7xf32>) -> tensor<5x7xf32>
// CHECK: %[[AT:.*]] = fuser.permute %[[A]] perm = [1, 0] : tensor<5x7xf32> -> tensor<7x5xf32>
// CHECK: %[[P:.*]] = fuser.matmul %[[AT]], %[[GC]] : (tensor<7x5xf32>, tensor<5x1xf32>) -> tensor<7x1xf32>
// CHECK: %[[GV:.*]] = fuser.reshape %[[P]] : tensor<7x1xf32> -> tensor<7xf32>
// CHECK: return %[[GA]], %[[GV]]
func.func @mv(%a: tensor<5x7xf32>, %b: tensor<7xf32>) -> tensor<5xf32> {
  %0 = fuser.matmul %a, %b : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// A gradient whose type knows less than its operand's (a [?, ?] product for
// a [?, 1] operand) takes the operand's type through a reshape marked as a
// refinement: the shape analysis ties its dims one for one, not by sizes.
// CHECK-LABEL: func.func @refine_vjp
// CHECK: %[[P:.*]] = fuser.matmul %{{.*}}, %{{.*}} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: fuser.reshape %[[P]] {fuser.refines_shape} : tensor<?x?xf32> -> tensor<?x1xf32>
func.func @refine(%a: tensor<?x1xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fuser.matmul %a, %b : (tensor<?x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
