// A collective segment is no kernel: a fuser.communicate in the plan with
// the elements of one member's part; the plan keeps the grid and the splits.
// RUN: fuser-opt %s -split-input-file --fuser-decompose --fuser-segment --fuser-emit-kernels | FileCheck %s

// Data parallel: each device's partial weight gradient is all-reduced
// between two kernels.
// CHECK-LABEL: func.func @data_parallel
// CHECK-SAME: %arg0: memref<4x16xf32> {fuser.name = "arg0", fuser.split = array<i64: 1, 0>}
// CHECK-SAME: %arg1: memref<16xf32> {fuser.name = "arg1", fuser.split = array<i64: 0>}
// CHECK-SAME: %arg2: memref<16xf32> {fuser.name = "result0", fuser.split = array<i64: 0>}
// CHECK-SAME: fuser.grid = array<i64: 2>
// CHECK: %[[P:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[S:.*]] = memref.alloc() : memref<16xf32>
// CHECK: fuser.launch {{.*}} args(%arg0, %[[P]]
// CHECK: fuser.communicate "all_reduce" %[[P]] -> %[[S]] count(%c16) reduction = "sum" grid_axes = [0] : memref<16xf32>, memref<16xf32>
// CHECK: fuser.launch {{.*}} args(%arg1, %[[S]], %arg2
func.func @data_parallel(%g: tensor<4x16xf32> {fuser.split = array<i64: 1, 0>}, %w: tensor<16xf32> {fuser.split = array<i64: 0>})
    -> (tensor<16xf32> {fuser.split = array<i64: 0>}) attributes {fuser.grid = array<i64: 2>} {
  %0 = fuser.sum %g dims = [0] : tensor<4x16xf32> -> tensor<16xf32>
  %1 = fuser.collective "all_reduce" %0 reduction = "sum" grid_axes = [0] group_size = 2 : tensor<16xf32> -> tensor<16xf32>
  %2 = fuser.sub %w, %1 : tensor<16xf32>, tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// An argument's gather goes straight to the library; the count is one
// member's part (a dynamic dim's size times the static ones).
// CHECK-LABEL: func.func @gather_argument
// CHECK: %[[N:.*]] = memref.dim %arg0, %{{.*}} : memref<?x8xbf16>
// CHECK: %[[G:.*]] = memref.alloc(%[[N]]) : memref<4x?x8xbf16>
// CHECK: %[[C:.*]] = arith.muli %[[N]], %c8 overflow<nsw> : index
// CHECK: fuser.communicate "all_gather" %arg0 -> %[[G]] count(%[[C]]) grid_axes = [0] : memref<?x8xbf16>, memref<4x?x8xbf16>
func.func @gather_argument(%x: tensor<?x8xbf16>) -> tensor<?x8x4xbf16> attributes {fuser.grid = array<i64: 4>} {
  %0 = fuser.collective "all_gather" %x grid_axes = [0] group_size = 4 : tensor<?x8xbf16> -> tensor<4x?x8xbf16>
  %1 = fuser.permute %0 perm = [1, 2, 0] : tensor<4x?x8xbf16> -> tensor<?x8x4xbf16>
  return %1 : tensor<?x8x4xbf16>
}

// -----

// A collective writes a result directly.
// CHECK-LABEL: func.func @into_result
// CHECK-NOT: fuser.launch
// CHECK: fuser.communicate "reduce_scatter" %arg0 -> %arg1 count(%c8) reduction = "max" grid_axes = [0, 1]
func.func @into_result(%x: tensor<4x8xf32>) -> tensor<8xf32> attributes {fuser.grid = array<i64: 2, 2>} {
  %0 = fuser.collective "reduce_scatter" %x reduction = "max" grid_axes = [0, 1] group_size = 4 : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
