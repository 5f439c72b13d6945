// fuser-vjp of ops along dim 0 of a scalar: the rules run on a copy of the
// forward lifted to [1] tensors (fuser-lift-rank-zero); @f itself stays as
// written, dead ops included (docs/autodiff.md: @f is unchanged).
// RUN: fuser-opt %s --fuser-vjp | FileCheck %s

// CHECK-LABEL: func.func @f(
// CHECK-NEXT: fuser.exp
// CHECK-NEXT: %[[S:.*]] = fuser.softmax %arg0 dim = 0 : tensor<f32>
// CHECK-NEXT: %[[M:.*]] = fuser.max %arg0 dims = [0] keepdim = true : tensor<f32> -> tensor<f32>
// CHECK-NEXT: return %[[S]], %[[M]]
// CHECK-LABEL: func.func @f_vjp(
// CHECK-NOT: fuser.softmax {{.*}}tensor<f32>
// CHECK: fuser.reshape %arg0 : tensor<f32> -> tensor<1xf32>
// CHECK: return
func.func @f(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %dead = fuser.exp %x : tensor<f32>
  %s = fuser.softmax %x dim = 0 : tensor<f32>
  %m = fuser.max %x dims = [0] keepdim = true : tensor<f32> -> tensor<f32>
  return %s, %m : tensor<f32>, tensor<f32>
}
