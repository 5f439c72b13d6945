// Sizes a fusion states (fuser.sizes: an affine map over the dynamic
// argument dims) where nothing else could tell them: a broadcast to another
// argument's shape that nothing else uses (torch's x.expand_as(z)), a
// reshape whose type is its input's but whose sizes are not
// (lib/Analysis/ShapeAnalysis.cpp, docs/dialect.md).
// RUN: fuser-opt %s -split-input-file --canonicalize --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// x [1, ?] expanded as z [?, ?]: s0 is x's dim 1, s1 and s2 z's dims; x's
// dim 1 must equal z's (checked when it runs).
// CHECK-LABEL: func.func @expand_as(
// CHECK-DAG: %[[X1:.*]] = memref.dim %arg0, %c1
// CHECK-DAG: %[[Z0:.*]] = memref.dim %arg1, %c0
// CHECK-DAG: %[[Z1:.*]] = memref.dim %arg1, %c1
// CHECK: fuser.check {{.*}}(%[[Z1]], %[[X1]]
// CHECK: fuser.result_dim %arg2[0] = %[[Z0]]
// CHECK: fuser.result_dim %arg2[1] = %[[X1]]
func.func @expand_as(%x: tensor<1x?xf32>, %z: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %b = fuser.broadcast %x dims = [0, 1] {fuser.sizes = affine_map<()[s0, s1, s2] -> (s1, s2)>} : tensor<1x?xf32> -> tensor<?x?xf32>
  return %b : tensor<?x?xf32>
}

// -----

// A broadcast of a constant keeps its statement (canonicalization would
// fold it into a constant that has none).
// CHECK-LABEL: func.func @filled_like(
// CHECK-DAG: %[[Z0:.*]] = memref.dim %arg0, %c0
// CHECK: fuser.result_dim %arg1[0] = %[[Z0]]
func.func @filled_like(%z: tensor<?xf32>) -> tensor<?xf32> {
  %c = fuser.constant 2.0 : tensor<f32>
  %b = fuser.broadcast %c dims = [] {fuser.sizes = affine_map<()[s0] -> (s0)>} : tensor<f32> -> tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

// x.view(x.shape[1], x.shape[0]) of [?, ?]: the same type, other sizes; the
// canonicalizer must not fold it into x.
// CHECK-LABEL: func.func @transposed_view(
// CHECK-DAG: %[[X0:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[X1:.*]] = memref.dim %arg0, %c1
// CHECK: fuser.result_dim %arg1[0] = %[[X1]]
// CHECK: fuser.result_dim %arg1[1] = %[[X0]]
func.func @transposed_view(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = fuser.reshape %x {fuser.sizes = affine_map<()[s0, s1] -> (s1, s0)>} : tensor<?x?xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
