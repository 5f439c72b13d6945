// A constant or an iota that an op reads from memory (a library call's
// operand, a scatter's source, a gather's table) is written by a kernel
// first: a constant as the broadcast of its rank-0 value, an iota plus 0.
// They were errors ("pass it as an argument of the fusion"), and the
// broadcast a user wrote instead was folded back into a constant.
// RUN: fuser-opt %s -split-input-file --fuser-segment | FileCheck %s

// torch's a @ torch.ones(16, 4).
// CHECK-LABEL: func.func @matmul_constant
// CHECK: %[[C:.*]] = fuser.constant 1.000000e+00 {fuser.segment = [[S:[0-9]+]] : i64} : tensor<f32>
// CHECK: %[[B:.*]] = fuser.broadcast %[[C]] dims = [] {fuser.segment = [[S]] : i64} : tensor<f32> -> tensor<16x4xf32>
// CHECK: fuser.matmul %arg0, %[[B]] {{{.*}}fuser.segment = {{[0-9]+}}
func.func @matmul_constant(%a: tensor<8x16xf32>) -> tensor<8x4xf32> {
  %c = fuser.constant 1.0 : tensor<16x4xf32>
  %0 = fuser.matmul %a, %c : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_iota
// CHECK: %[[I:.*]] = fuser.iota dim = 0
// CHECK: %[[W:.*]] = fuser.add %[[I]], %{{.*}} {fuser.segment
// CHECK: fuser.matmul %arg0, %[[W]]
func.func @matmul_iota(%a: tensor<8x16xf32>) -> tensor<8x4xf32> {
  %c = fuser.iota dim = 0 : tensor<16x4xf32>
  %0 = fuser.matmul %a, %c : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @gather_constant
// CHECK: %[[B:.*]] = fuser.broadcast %{{.*}} dims = [] {fuser.segment
// CHECK: fuser.gather %[[B]], %arg0
func.func @gather_constant(%i: tensor<4xi64>) -> tensor<4xf32> {
  %c = fuser.constant 1.0 : tensor<10xf32>
  %g = fuser.gather %c, %i dim = 0 : tensor<10xf32>, tensor<4xi64> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_constant_source
// CHECK: %[[B:.*]] = fuser.broadcast %{{.*}} dims = [] {fuser.segment
// CHECK: fuser.scatter_add %arg0, %arg1, %[[B]]
func.func @scatter_constant_source(%x: tensor<10xf32>, %i: tensor<4xi64>) -> tensor<10xf32> {
  %one = fuser.constant 1.0 : tensor<4xf32>
  %0 = fuser.scatter_add %x, %i, %one dim = 0 : tensor<10xf32>, tensor<4xi64>, tensor<4xf32>
  return %0 : tensor<10xf32>
}
