// fuser.collective and fuser.communicate: every kind round-trips.
// RUN: fuser-opt %s | fuser-opt | FileCheck %s
// RUN: fuser-opt %s --mlir-print-op-generic | fuser-opt | FileCheck %s

// CHECK-LABEL: func.func @kinds
func.func @kinds(%x: tensor<2x16xf32>, %p: tensor<4x2x16xf32>, %b: tensor<8xi1>, %h: tensor<2x?xbf16>,
                 %f8: tensor<4x2xf8E4M3FN>)
    -> (tensor<2x16xf32>, tensor<4x2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<4x2x16xf32>,
        tensor<8xi1>, tensor<4x2x?xbf16>, tensor<2xf8E4M3FN>) {
  // CHECK: fuser.collective "all_reduce" %{{.*}} reduction = "sum" grid_axes = [0] group_size = 4 : tensor<2x16xf32> -> tensor<2x16xf32>
  %0 = fuser.collective "all_reduce" %x reduction = "sum" grid_axes = [0] group_size = 4 : tensor<2x16xf32> -> tensor<2x16xf32>
  // CHECK: fuser.collective "all_gather" %{{.*}} grid_axes = [0, 1] group_size = 4 : tensor<2x16xf32> -> tensor<4x2x16xf32>
  %1 = fuser.collective "all_gather" %x grid_axes = [0, 1] group_size = 4 : tensor<2x16xf32> -> tensor<4x2x16xf32>
  // CHECK: fuser.collective "reduce_scatter" %{{.*}} reduction = "avg" grid_axes = [1] group_size = 4 : tensor<4x2x16xf32> -> tensor<2x16xf32>
  %2 = fuser.collective "reduce_scatter" %p reduction = "avg" grid_axes = [1] group_size = 4 : tensor<4x2x16xf32> -> tensor<2x16xf32>
  // CHECK: fuser.collective "slice" %{{.*}} grid_axes = [0] group_size = 4 : tensor<4x2x16xf32> -> tensor<2x16xf32>
  %3 = fuser.collective "slice" %p grid_axes = [0] group_size = 4 : tensor<4x2x16xf32> -> tensor<2x16xf32>
  // CHECK: fuser.collective "all_to_all" %{{.*}} grid_axes = [0] group_size = 4 : tensor<4x2x16xf32> -> tensor<4x2x16xf32>
  %4 = fuser.collective "all_to_all" %p grid_axes = [0] group_size = 4 : tensor<4x2x16xf32> -> tensor<4x2x16xf32>
  // i1 reduces with max (any) and min (all).
  // CHECK: fuser.collective "all_reduce" %{{.*}} reduction = "max"
  %5 = fuser.collective "all_reduce" %b reduction = "max" grid_axes = [0] group_size = 2 : tensor<8xi1> -> tensor<8xi1>
  // Dims other than the parts' may be known only at launch.
  // CHECK: fuser.collective "all_gather" %{{.*}} : tensor<2x?xbf16> -> tensor<4x2x?xbf16>
  %6 = fuser.collective "all_gather" %h grid_axes = [0] group_size = 4 : tensor<2x?xbf16> -> tensor<4x2x?xbf16>
  // fp8 moves without a reduction.
  // CHECK: fuser.collective "slice" %{{.*}} : tensor<4x2xf8E4M3FN> -> tensor<2xf8E4M3FN>
  %7 = fuser.collective "slice" %f8 grid_axes = [0] group_size = 4 : tensor<4x2xf8E4M3FN> -> tensor<2xf8E4M3FN>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x16xf32>, tensor<4x2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>,
      tensor<4x2x16xf32>, tensor<8xi1>, tensor<4x2x?xbf16>, tensor<2xf8E4M3FN>
}

// CHECK-LABEL: func.func @plan
func.func @plan(%src: memref<16xf32>, %dst: memref<64xf32>, %n: index) {
  // CHECK: fuser.communicate "all_gather" %{{.*}} -> %{{.*}} count(%{{.*}}) grid_axes = [0] : memref<16xf32>, memref<64xf32>
  fuser.communicate "all_gather" %src -> %dst count(%n) grid_axes = [0] : memref<16xf32>, memref<64xf32>
  // CHECK: fuser.communicate "all_reduce" %{{.*}} -> %{{.*}} count(%{{.*}}) reduction = "min" grid_axes = [0, 2]
  fuser.communicate "all_reduce" %dst -> %src count(%n) reduction = "min" grid_axes = [0, 2] : memref<64xf32>, memref<16xf32>
  return
}
