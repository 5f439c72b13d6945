// Arguments that are views (`fuser.strides`): read through their strides.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// A transposed view (stride 1 along dim 0): the transpose tile stages it,
// so the reads along its contiguous dim and the writes along the result's
// are both coalesced. The plan's buffer carries the strides.
// CHECK-LABEL: gpu.module @xt_kernels
// CHECK: gpu.func @xt_0({{.*}}) workgroup(%{{.*}} : memref<32x33xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 8, 1>}
// CHECK-LABEL: func.func @xt(
// CHECK-SAME: memref<64x48xf32, strided<[1, 64]>>
func.func @xt(%x: tensor<64x48xf32> {fuser.strides = strided<[1, 64]>}) -> tensor<64x48xf32> {
  %0 = fuser.neg %x : tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

// A dynamic row stride (a slice of wider rows): the plan reads it from the
// caller (extract_strided_metadata becomes STRIDE in the bundle), passes it
// to the kernels, keeps the vector path only where it is a multiple of the
// lanes, and counts the view's span (1 + (rows - 1) * stride + ...) in the
// choice of 32-bit indexing.
// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32, strided<[?, 1]>>
// CHECK-DAG: %[[D0:.*]] = memref.dim %[[X]], %c0
// CHECK-DAG: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[ST:.*]]:2 = memref.extract_strided_metadata %[[X]]
// CHECK: %[[R:.*]] = arith.addi %[[D0]], %c-1
// CHECK: arith.muli %[[R]], %[[ST]]#0
// CHECK: arith.remui %[[ST]]#0, %c4
// CHECK: fuser.launch @slice_kernels::@slice_0 {{.*}} args(%[[X]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ST]]#0, %{{.*}} : memref<?x?xf32, strided<[?, 1]>>
// CHECK-SAME: index_bits [32, 32, 32, 32]
// CHECK: fuser.launch @slice_kernels::@slice_1 {{.*}} index_bits [64, 64, 64, 32]
func.func @slice(%x: tensor<?x?xf32> {fuser.strides = strided<[?, 1]>}) -> tensor<?x?xf32> {
  %0 = fuser.neg %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// An expanded view (stride 0 along dim 0): the row is read with vector
// loads at the column alone; no row index enters its address.
// CHECK-LABEL: gpu.func @expanded_0
// CHECK: %[[C:.*]] = arith.remui %{{.*}}, %c64_i32 : i32
// CHECK: %[[P:.*]] = llvm.getelementptr inbounds %arg0[%[[C]]]
// CHECK: llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr -> vector<8xbf16>
func.func @expanded(%x: tensor<9x64xbf16> {fuser.strides = strided<[0, 1]>}) -> tensor<9x64xbf16> {
  %0 = fuser.neg %x : tensor<9x64xbf16>
  return %0 : tensor<9x64xbf16>
}

// -----

// Static strides equal to the dense ones are no view: a plain buffer.
// CHECK-LABEL: func.func @dense(
// CHECK-SAME: memref<4x8xf32> {fuser.name
func.func @dense(%x: tensor<4x8xf32> {fuser.strides = strided<[8, 1]>}) -> tensor<4x8xf32> {
  %0 = fuser.neg %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
