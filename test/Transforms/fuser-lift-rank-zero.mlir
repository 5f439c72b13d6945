// Ops along dim 0 of a rank-0 tensor become the op of a [1] tensor between
// two reshapes; a reduction drops keepdim (its result is rank 0 either way).
// RUN: fuser-opt %s --fuser-lift-rank-zero | FileCheck %s

// CHECK-LABEL: func.func @reductions
// CHECK-NEXT: %[[L:.*]] = fuser.reshape %arg0 : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT: %[[S:.*]] = fuser.sum %[[L]] dims = [0] : tensor<1xf32> -> tensor<f32>
// CHECK-NEXT: %[[L2:.*]] = fuser.reshape %arg0 : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT: %[[M:.*]] = fuser.max %[[L2]] dims = [0] : tensor<1xf32> -> tensor<f32>
// CHECK-NEXT: %[[L3:.*]] = fuser.reshape %arg0 : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT: %[[V:.*]], %[[MEAN:.*]] = fuser.var_mean %[[L3]] dims = [0] correction = 0 : tensor<1xf32> -> tensor<f32>, tensor<f32>
// CHECK-NEXT: return %[[S]], %[[M]], %[[V]], %[[MEAN]]
func.func @reductions(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %s = fuser.sum %x dims = [0] : tensor<f32> -> tensor<f32>
  %m = fuser.max %x dims = [0] keepdim = true : tensor<f32> -> tensor<f32>
  %v, %mean = fuser.var_mean %x dims = [0] correction = 0 keepdim = true : tensor<f32> -> tensor<f32>, tensor<f32>
  return %s, %m, %v, %mean : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @along
// CHECK-NEXT: %[[L:.*]] = fuser.reshape %arg0 : tensor<bf16> -> tensor<1xbf16>
// CHECK-NEXT: %[[S:.*]] = fuser.softmax %[[L]] dim = 0 : tensor<1xbf16>
// CHECK-NEXT: %[[R:.*]] = fuser.reshape %[[S]] : tensor<1xbf16> -> tensor<bf16>
// CHECK-NEXT: %[[L2:.*]] = fuser.reshape %arg0 : tensor<bf16> -> tensor<1xbf16>
// CHECK-NEXT: %[[C:.*]], %[[CX:.*]] = fuser.cummin %[[L2]] dim = 0 : tensor<1xbf16> -> tensor<1xi64>
// CHECK-NEXT: %[[CV:.*]] = fuser.reshape %[[C]] : tensor<1xbf16> -> tensor<bf16>
// CHECK-NEXT: %[[CI:.*]] = fuser.reshape %[[CX]] : tensor<1xi64> -> tensor<i64>
// CHECK-NEXT: return %[[R]], %[[CV]], %[[CI]]
func.func @along(%x: tensor<bf16>) -> (tensor<bf16>, tensor<bf16>, tensor<i64>) {
  %s = fuser.softmax %x dim = 0 : tensor<bf16>
  %v, %i = fuser.cummin %x dim = 0 : tensor<bf16> -> tensor<i64>
  return %s, %v, %i : tensor<bf16>, tensor<bf16>, tensor<i64>
}

// cumsum and cumprod of a scalar are the scalar, as PyTorch's (a -0.0
// stays -0.0).
// CHECK-LABEL: func.func @scans
// CHECK-NEXT: return %arg0, %arg0
func.func @scans(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %s = fuser.cumsum %x dim = 0 : tensor<f32>
  %p = fuser.cumprod %x dim = 0 : tensor<f32>
  return %s, %p : tensor<f32>, tensor<f32>
}

// A rank-1 input is left alone.
// CHECK-LABEL: func.func @vector
// CHECK-NEXT: fuser.cumsum %arg0 dim = 0 : tensor<4xf32>
// CHECK-NEXT: return
func.func @vector(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = fuser.cumsum %x dim = 0 : tensor<4xf32>
  return %c : tensor<4xf32>
}
