// RUN: fuser-opt %s --fuser-segment --fuser-emit-kernels | FileCheck %s

// Tensor names in the plan (and so in the bundle): given names as given,
// defaults (argN, resultN) made unique against them, so that a user's
// %result0 does not collide with the first result's default name.
// CHECK-LABEL: func.func @names(
// CHECK-SAME: fuser.name = "result0"
// CHECK-SAME: fuser.name = "arg1"
// CHECK-SAME: fuser.name = "result0_"
// CHECK-SAME: fuser.name = "result1"
func.func @names(%a: tensor<4xf32> {fuser.name = "result0"}, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = fuser.add %a, %b : tensor<4xf32>, tensor<4xf32>
  %1 = fuser.mul %a, %b : tensor<4xf32>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
