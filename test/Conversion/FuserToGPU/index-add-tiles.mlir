// An index_add with a long index (more than 32 positions, or a length
// known only at launch) takes the tiled kernel (IndexAddScheduler.cpp): a
// block per tile of rows, the index read a chunk at a time, its hits in the
// tile compacted in order into shared memory (a warp prefix sum by
// shuffles, the warps' totals through shared memory), then added into the
// tile's running sums.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// An embedding's gradient: 1000 rows of 64, 3000 ids. Tiles of 4 rows (4
// row groups of 64 columns: 250 tiles) with 4 x 64 running sums; the hit
// list of 1024 positions and rows; 8 warps' counts.
// CHECK-LABEL: gpu.func @embedding_backward_0(
// CHECK-SAME: workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8xi32, #gpu.address_space<workgroup>>)
// The tiles, then self (a zero) into the running sums (one row a thread).
// CHECK: scf.for %{{.*}} = %{{.*}} to %c250_i32
// CHECK: memref.store %cst, %arg4
// The index in chunks of 1024 (three), 4 consecutive ids a thread, the
// warp scan of the hits.
// CHECK: scf.for %{{.*}} = %c0_i32 to %c3_i32
// CHECK-COUNT-4: llvm.load {{.*}} -> i64
// CHECK-NOT: llvm.load
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.load %arg7
// The thread's hits in order from its first slot (an id out of range too,
// in the first tile, as row -1).
// CHECK-COUNT-4: memref.store {{.*}}, %arg6
// CHECK: gpu.barrier
// The walk: an id out of range reported by thread 0 (its id read again);
// else the hit's source row, added into the running sum.
// CHECK: scf.for
// CHECK: memref.load %arg6
// CHECK: cmpi eq, %{{.*}}, %c-1_i32
// CHECK: memref.load %arg5
// CHECK: llvm.load {{.*}} -> i64
// CHECK: fuser.index_error
// CHECK: } else {
// CHECK: llvm.load {{.*}} -> f32
// CHECK: memref.load %arg4
// CHECK: arith.addf
// CHECK: memref.store {{.*}}, %arg4
// The results from the running sums.
// CHECK: scf.if
// CHECK: memref.load %arg4
// CHECK: llvm.store
// CHECK: gpu.return
func.func @embedding_backward(%ids: tensor<3000xi64>, %dy: tensor<3000x64xf32>) -> tensor<1000x64xf32> {
  %z = fuser.constant 0.0 : tensor<f32>
  %zb = fuser.broadcast %z dims = [] : tensor<f32> -> tensor<1000x64xf32>
  %0 = fuser.index_add %zb, %ids, %dy dim = 0 : tensor<1000x64xf32>, tensor<3000xi64>, tensor<3000x64xf32>
  return %0 : tensor<1000x64xf32>
}

// -----

// 32 ids: each element walks the index (no shared memory), as before.
// CHECK-LABEL: gpu.func @short_index_0(
// CHECK-NOT: workgroup
// CHECK: kernel attributes
func.func @short_index(%x: tensor<100x64xf32>, %ids: tensor<32xi32>, %s: tensor<32x64xf32>) -> tensor<100x64xf32> {
  %0 = fuser.index_add %x, %ids, %s dim = 0 : tensor<100x64xf32>, tensor<32xi32>, tensor<32x64xf32>
  return %0 : tensor<100x64xf32>
}

// -----

// A consumer reading the index_add at other positions (a reshape): the
// running sums hold only the tile's own elements, so each element walks.
// CHECK-LABEL: gpu.func @reshaped_0(
// CHECK-NOT: workgroup
// CHECK: kernel attributes
func.func @reshaped(%x: tensor<100x64xf32>, %ids: tensor<300xi32>, %s: tensor<300x64xf32>) -> tensor<64x100xf32> {
  %0 = fuser.index_add %x, %ids, %s dim = 0 : tensor<100x64xf32>, tensor<300xi32>, tensor<300x64xf32>
  %1 = fuser.reshape %0 : tensor<100x64xf32> -> tensor<64x100xf32>
  %2 = fuser.exp %1 : tensor<64x100xf32>
  return %2 : tensor<64x100xf32>
}

// -----

// Along the last dim (one column a tile: 256 row groups of one row each
// over 3 x 5000), with a length known only at launch and an epilogue: a
// 32-bit and a 64-bit variant, each squaring the running sum it stores.
// CHECK-LABEL: gpu.func @last_dim_0(
// CHECK-SAME: workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: arith.remui {{.*}}, %c256_i32
// CHECK: memref.load %arg{{[0-9]+}}
// CHECK: arith.mulf
// CHECK: llvm.store
// CHECK-LABEL: gpu.func @last_dim_1(
// CHECK-SAME: workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xi64, #gpu.address_space<workgroup>>
func.func @last_dim(%x: tensor<3x5000xf32>, %ids: tensor<?xi32>, %s: tensor<3x?xf32>) -> tensor<3x5000xf32> {
  %0 = fuser.index_add %x, %ids, %s dim = 1 : tensor<3x5000xf32>, tensor<?xi32>, tensor<3x?xf32>
  %1 = fuser.mul %0, %0 : tensor<3x5000xf32>
  return %1 : tensor<3x5000xf32>
}
