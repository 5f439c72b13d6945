// Inner-outer kernels: a row normalization and a column sum of the same
// tensor (the shape of a layer_norm backward's dx and dw) in one row kernel
// and a combine.
// RUN: fuser-opt %s -split-input-file --fuser-decompose --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// 256 rows of 512 f32: 32 threads a row (4 slots of 4 lanes, 16 values a
// thread), 8 rows a block, 32 blocks (a block per 32 rows would leave SMs
// idle: at least one block per SM while each has rows). The column sums
// add the rows in chunks of 8 consecutive rows (32 chunks), each chunk's
// rows in row order, whatever the block: each step, every row of threads
// stages its row's values in shared memory ([row of threads][slot][lane]
// [thread]: a warp's stores hit 32 banks), and the thread that owns a slot (slot ty: 4 of the 8 rows of
// threads own one) adds the 8 rows' values to its one accumulator in row
// order, masked past the chunk; after the chunk it writes the chunk's
// partials. A misaligned buffer takes the same kernel, its accesses lane
// by lane (the same slots: the same bits). The combine: blocks of
// 32 columns by 8 groups; group g adds the partials of chunks g, g + 8, ...
// of its column, then group 0 adds the 8 groups' sums in group order.
// CHECK-LABEL: gpu.func @dxdw_0(
// CHECK-SAME: workgroup(%[[STAGE:.*]] : memref<4096xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %[[CHUNK:.*]] = %{{.*}} to %c32_i32 step
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>)
// CHECK: gpu.barrier
// CHECK: gpu.shuffle xor
// CHECK: memref.store {{.*}}, %[[STAGE]]
// CHECK: gpu.barrier
// CHECK: scf.if {{.*}} -> (vector<4xf32>)
// CHECK-COUNT-32: memref.load %[[STAGE]]
// CHECK: arith.select {{.*}} : vector<4xf32>
// CHECK: scf.yield {{.*}} : vector<4xf32>
// CHECK: arith.muli %[[CHUNK]], %c512_i32
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK-LABEL: gpu.func @dxdw_1(
// CHECK-SAME: workgroup(%[[GROUPS:.*]] : memref<8x32xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 32, 8, 1>
// CHECK: scf.for %[[TILE:.*]] = {{.*}} to %c512_i32 step
// CHECK:   scf.for {{.*}} step %c8_i32 iter_args({{.*}}) -> (f32)
// CHECK:   memref.store {{.*}}, %[[GROUPS]][%thread_id_y, %thread_id_x]
// CHECK:   gpu.barrier
// CHECK:   scf.if
// CHECK:     memref.load %[[GROUPS]][%c0, %thread_id_x]
// CHECK:     memref.load %[[GROUPS]][%c7, %thread_id_x]
// CHECK:   gpu.barrier
// CHECK-LABEL: func.func @dxdw(
// CHECK: %[[PARTIALS:.*]] = memref.alloc() : memref<16384xf32>
// CHECK: %[[P:.*]] = memref.cast %[[PARTIALS]]
// CHECK: fuser.launch @dxdw_kernels::@dxdw_0 grid(%c32, %c1, %c1) block(%c32, %c8, %c1) {{.*}} args({{.*}}, %[[P]], {{.*}})
// CHECK-NOT: fuser.launch @dxdw_kernels::@dxdw_0
// CHECK: fuser.launch @dxdw_kernels::@dxdw_1 grid(%c16, %c1, %c1) block(%c32, %c8, %c1) {{.*}} args(%arg0, %arg1, %arg3, %[[P]], %c32 :
func.func @dxdw(%x: tensor<256x512xf32>, %s: tensor<256x1xf32>) -> (tensor<256x512xf32>, tensor<512xf32>) {
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<256x1xf32> -> tensor<256x512xf32>
  %h = fuser.mul %x, %sb : tensor<256x512xf32>
  %m = fuser.sum %h dims = [1] keepdim = true : tensor<256x512xf32> -> tensor<256x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1] : tensor<256x1xf32> -> tensor<256x512xf32>
  %y = fuser.sub %h, %mb : tensor<256x512xf32>
  %c = fuser.sum %h dims = [0] : tensor<256x512xf32> -> tensor<512xf32>
  return %y, %c : tensor<256x512xf32>, tensor<512xf32>
}

// -----

// Dynamic sizes: rows of whole aligned vectors of up to 8192 elements stay
// on chip (16 values a thread, threads and rows a block chosen by the
// plan): up to 2048 in blocks of 256 threads whose rows of threads stage
// their rows for the column sums (dynamic_0: R*T = 256 threads' values;
// no register cap below 255, where 128 spilled), longer ones one row of
// threads a block without a stage (dynamic_1); up to 16384 with the column
// accumulators in dynamic shared memory (one row of 512 threads a block,
// 32 values each: 64 KiB of accumulators, 2 KiB of the row reduction's
// scratch, and the row's values past 8 a thread, 48 KiB); other rows of up
// to 4096 in scalars (staged when the plan gives more than one row of
// threads), up to 8192 in scalars with the accumulators (32 KiB) and the
// row past 8 values (16 KiB) in shared memory; longer ones are read again
// (one row a block). Every variant adds the same chunks of rows (rows per
// chunk: those 256 threads hold at once, 1 to 8, and at least rows / 256):
// the grid is at most the chunk count, the combine adds the chunks'
// partials (none when there are no rows: the sums are then 0), and it runs
// whenever there are columns.
// CHECK-LABEL: gpu.func @dynamic_0(
// CHECK-SAME: workgroup(%{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>) kernel {
// CHECK-LABEL: gpu.func @dynamic_1(
// CHECK-SAME: workgroup(%{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>) kernel attributes {nvvm.maxnreg = 128 : i32}
// CHECK-LABEL: gpu.func @dynamic_2(
// CHECK-SAME: workgroup(%{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16384xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<12288xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: fuser.dynamic_shared
// CHECK-LABEL: gpu.func @dynamic_3(
// CHECK-SAME: workgroup(%{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>)
// CHECK-LABEL: gpu.func @dynamic_4(
// CHECK-SAME: workgroup(%{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8192xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: fuser.dynamic_shared
// CHECK-LABEL: func.func @dynamic(
// CHECK: %[[BY256:.*]] = arith.ceildivui %dim, %c256 : index
// CHECK: %[[PER:.*]] = arith.maxui %{{.*}}, %[[BY256]] : index
// CHECK: %[[CHUNKS:.*]] = arith.ceildivui %dim, %[[PER]] : index
// CHECK: %[[CAPPED:.*]] = arith.minui %{{.*}}, %[[CHUNKS]] : index
// CHECK: %[[HAS:.*]] = arith.cmpi sgt, %dim, %c0 : index
// CHECK: fuser.launch @dynamic_kernels::@dynamic_0 grid(%[[G:.*]], %c1, %c1) block(%[[T:.*]], %[[R:.*]], %c1) smem(%c0)
// CHECK: fuser.launch @dynamic_kernels::@dynamic_1 grid(%[[G]], %c1, %c1) block(%{{.*}}, %c1, %c1) smem(%c0)
// CHECK: fuser.launch @dynamic_kernels::@dynamic_2 grid(%[[G]], %c1, %c1) block(%{{.*}}, %c1, %c1) smem(%c116736)
// CHECK: fuser.launch @dynamic_kernels::@dynamic_3 grid(%[[G]], %c1, %c1) block(%{{.*}}, %{{.*}}, %c1) smem(%c0)
// CHECK: fuser.launch @dynamic_kernels::@dynamic_4 grid(%[[G]], %c1, %c1) block(%{{.*}}, %c1, %c1) smem(%c51200)
// CHECK: fuser.launch @dynamic_kernels::@dynamic_5 grid(%[[G]], %c1, %c1) block(%{{.*}}, %c1, %c1) smem(%c0)
// CHECK: %[[SPLITS:.*]] = arith.select %[[HAS]], %[[CHUNKS]], %c0 : index
// CHECK: fuser.launch @dynamic_kernels::@dynamic_6 {{.*}} args({{.*}}, %[[SPLITS]] :
func.func @dynamic(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %m = fuser.max %x dims = [1] keepdim = true : tensor<?x?xf32> -> tensor<?x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1] : tensor<?x1xf32> -> tensor<?x?xf32>
  %y = fuser.sub %x, %mb : tensor<?x?xf32>
  %c = fuser.sum %x dims = [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %y, %c : tensor<?x?xf32>, tensor<?xf32>
}
