// The reduction and normalization kernels.
// RUN: fuser-opt %s -split-input-file --fuser-decompose --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// An inner reduction: threads walk the row with 128-bit loads, then a warp
// butterfly, partials of the warps through shared memory, and a butterfly
// over them.
// CHECK-LABEL: gpu.func @rowsum_0(
// CHECK-SAME: workgroup(%[[SCRATCH:.*]] : memref<16x32xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK:   scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>)
// CHECK:     llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK:   gpu.shuffle xor {{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:   gpu.shuffle xor {{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:   memref.store {{.*}}, %[[SCRATCH]]
// CHECK:   gpu.barrier
// CHECK:   memref.load %[[SCRATCH]]
// CHECK:   gpu.barrier
// CHECK-LABEL: func.func @rowsum(
// CHECK: fuser.launch @rowsum_kernels::@rowsum_0 grid({{.*}}) block(%c64, %c4, %c1)
func.func @rowsum(%x: tensor<64x1024xf32>) -> tensor<64xf32> {
  %0 = fuser.sum %x dims = [1] : tensor<64x1024xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// softmax of short rows: one warp per row, eight rows per block, the row
// read once into registers (one 128-bit load per thread, none for a row past
// the last) and reused by both reductions and the output. A misaligned
// buffer takes the same kernel: the launch's flag says whether the plan's
// checks hold, and each access is one vector where they do, lane by lane
// where they do not.
// CHECK-LABEL: gpu.func @softmax_0(
// CHECK-NOT: workgroup
// CHECK: %[[ALIGNED:.*]] = arith.cmpi ne, %arg{{[0-9]+}}, %c0_i32 : i32
// CHECK: %[[LOADED:.*]] = scf.if %[[VALID:.*]] -> (vector<4xf32>) {
// CHECK: scf.if %[[ALIGNED]] -> (vector<4xf32>) {
// CHECK: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-4: llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: } else {
// CHECK-NOT: llvm.load
// CHECK: gpu.shuffle xor
// CHECK-NOT: llvm.load
// CHECK: scf.if %[[ALIGNED]] {
// CHECK: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr
// CHECK: } else {
// CHECK-COUNT-4: llvm.store {{.*}} : f32, !llvm.ptr
// CHECK-NOT: gpu.func @softmax_1(
// CHECK-LABEL: func.func @softmax(
// CHECK-DAG: %[[OUT:.*]] = fuser.is_aligned %arg1, 16
// CHECK-DAG: %[[IN:.*]] = fuser.is_aligned %arg0, 16
// CHECK: %[[BOTH:.*]] = arith.andi %[[OUT]], %[[IN]]
// CHECK: %[[FLAG:.*]] = arith.index_castui %[[BOTH]]
// CHECK: fuser.launch @softmax_kernels::@softmax_0 {{.*}}block(%c32, %c8, %c1) smem(%c0) args(%arg0, %arg1, %[[FLAG]] :
// CHECK-NOT: fuser.launch
func.func @softmax(%x: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %0 = fuser.softmax %x dim = 1 : tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}

// -----

// A column sum over few columns splits the rows across blocks: each block
// writes its partial sums (marked fuser.cross_block) into a buffer the plan
// allocates, fences, and counts its arrival on its column tile's counter;
// the last block to arrive fences and combines the partials in split order.
// One kernel; the counters are zeroed before it (fuser.zeroed).
// CHECK-LABEL: gpu.func @colsum_0(
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.noalias, llvm.readonly}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i32) workgroup
// CHECK: gpu.block_id y
// CHECK: gpu.barrier
// CHECK: llvm.store {{.*}}fuser.cross_block} : vector<4xf32>, !llvm.ptr
// CHECK: gpu.barrier
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: %[[OLD:.*]] = llvm.atomicrmw add {{.*}} syncscope("device") monotonic : !llvm.ptr, i32
// CHECK: arith.cmpi eq, %[[OLD]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: scf.for {{.*}} iter_args
// CHECK: llvm.load {{.*}}fuser.cross_block}
// CHECK: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr
// CHECK-NOT: gpu.func @colsum_1(
// CHECK-LABEL: func.func @colsum(
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<32768xf32>
// CHECK: %[[CAST:.*]] = memref.cast %[[BUF]]
// CHECK: %[[CNT:.*]] = memref.alloc() : memref<8xi32>
// CHECK: %[[CCAST:.*]] = memref.cast %[[CNT]]
// CHECK: fuser.zeroed %[[CCAST]]
// CHECK: fuser.launch @colsum_kernels::@colsum_0 grid(%c2, %c128, %c1) block(%c32, %c8, %c1) {{.*}}args(%arg0, %arg1, %[[CAST]], %[[CCAST]]
// CHECK-NOT: fuser.launch
func.func @colsum(%x: tensor<65536x256xf32>) -> tensor<256xf32> {
  %0 = fuser.sum %x dims = [0] : tensor<65536x256xf32> -> tensor<256xf32>
  return %0 : tensor<256xf32>
}

// -----

// var_mean accumulates with Welford's algorithm: (count, mean, m2), one
// scratch buffer for each.
// CHECK-LABEL: gpu.func @vm_0(
// CHECK-SAME: workgroup(%{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>)
func.func @vm(%x: tensor<64x4096xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %v, %m = fuser.var_mean %x dims = [1] : tensor<64x4096xf32> -> tensor<64xf32>, tensor<64xf32>
  return %v, %m : tensor<64xf32>, tensor<64xf32>
}

// -----

// A reduction of fewer rows than SMs splits each row across blocks along y,
// each block writing one partial per row (62 splits of 512 threads x 32
// elements); the last block of the row to arrive at its counter combines
// them in split order. One kernel.
// CHECK-LABEL: gpu.func @total_0(
// CHECK: gpu.block_id y
// CHECK: gpu.shuffle xor
// CHECK: llvm.store {{.*}}fuser.cross_block} : f32, !llvm.ptr
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: llvm.atomicrmw add
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: scf.for {{.*}} iter_args
// CHECK: llvm.load {{.*}}fuser.cross_block}
// CHECK-NOT: gpu.func @total_1(
// CHECK-LABEL: func.func @total(
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<62xf32>
// CHECK: %[[CAST:.*]] = memref.cast %[[BUF]]
// CHECK: %[[CNT:.*]] = memref.alloc() : memref<1xi32>
// CHECK: %[[CCAST:.*]] = memref.cast %[[CNT]]
// CHECK: fuser.zeroed %[[CCAST]]
// CHECK: fuser.launch @total_kernels::@total_0 grid(%c1, %c62, %c1) block(%c512, %c1, %c1) {{.*}}args(%arg0, %arg1, %[[CAST]], %[[CCAST]]
// CHECK-NOT: fuser.launch
func.func @total(%x: tensor<1000000xf32>) -> tensor<f32> {
  %0 = fuser.sum %x dims = [0] : tensor<1000000xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Rows known only at launch: the split variant (and its partials and
// counters) when there are fewer rows than SMs and rows of at least 32768
// elements, the one-kernel variant otherwise; the partials and counters are
// empty when unused.
// CHECK-LABEL: func.func @rowsum_dyn(
// CHECK: %[[ROWS:.*]] = memref.dim %arg0, %c0
// CHECK: %[[FEW:.*]] = arith.cmpi ult, %[[ROWS]], %c128
// CHECK: %[[ATLEAST1:.*]] = arith.maxui %[[ROWS]], %c1
// CHECK: %[[WANTED:.*]] = arith.ceildivui %c256, %[[ATLEAST1]]
// CHECK: %[[MOST:.*]] = arith.minui %[[WANTED]], %c4
// CHECK: %[[SPLITS:.*]] = arith.select %[[FEW]], %[[MOST]], %c1
// CHECK: %[[N:.*]] = arith.muli %[[SPLITS]], %[[ROWS]]
// CHECK: %[[SIZE:.*]] = arith.select %[[FEW]], %[[N]], %c0
// CHECK: %[[BUF:.*]] = memref.alloc(%[[SIZE]])
// CHECK: %[[NCNT:.*]] = arith.select %[[FEW]], %[[ROWS]], %c0
// CHECK: %[[CNT:.*]] = memref.alloc(%[[NCNT]]) : memref<?xi32>
// CHECK: fuser.zeroed %[[CNT]]
// CHECK: fuser.launch @rowsum_dyn_kernels::@rowsum_dyn_0 grid(%{{.*}}, %[[SPLITS]], %c1) block(%c512, %c1, %c1) {{.*}} if(%{{.*}}) args(%arg0, %arg1, %[[BUF]], %[[CNT]], %[[ROWS]],
// CHECK: %[[MANY:.*]] = arith.cmpi uge, %[[ROWS]], %c128
// CHECK: fuser.launch @rowsum_dyn_kernels::@rowsum_dyn_1 grid({{.*}}) block(%c1024, %c1, %c1)
// CHECK: fuser.launch @rowsum_dyn_kernels::@rowsum_dyn_2 {{.*}} index_bits [64, 32]
// CHECK: fuser.launch @rowsum_dyn_kernels::@rowsum_dyn_3 {{.*}} index_bits [64, 32]
// CHECK-NOT: fuser.launch
func.func @rowsum_dyn(%x: tensor<?x65536xf32>) -> tensor<?xf32> {
  %0 = fuser.sum %x dims = [1] : tensor<?x65536xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A normalization never splits its rows: the row must come back to the
// block that normalizes it.
// CHECK-LABEL: func.func @longsoftmax(
// CHECK-NOT: memref.alloc
// CHECK: fuser.launch @longsoftmax_kernels::@longsoftmax_0
// CHECK-NOT: fuser.launch
func.func @longsoftmax(%x: tensor<1x1000000xf32>) -> tensor<1x1000000xf32> {
  %0 = fuser.softmax %x dim = 1 : tensor<1x1000000xf32>
  return %0 : tensor<1x1000000xf32>
}

// -----

// A row length known only at launch: rows of whole vectors of up to 16384
// elements stay in registers (eight masked slots of four lanes per thread,
// the threads chosen by the plan, at most 512 of them so that a thread may
// use 128 registers), rows up to 32768 in 1024-thread blocks of 64
// registers a thread; other rows (not whole vectors, misaligned) of up to
// 8192 elements in 16 masked scalar slots a thread; longer ones are read
// once per pass.
// CHECK-LABEL: gpu.func @dynsoftmax_0(
// CHECK-SAME: nvvm.maxnreg = 128
// CHECK-COUNT-8: llvm.load {{.*}} -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK: gpu.shuffle xor
// CHECK-NOT: llvm.load
// CHECK-LABEL: gpu.func @dynsoftmax_1(
// CHECK-SAME: nvvm.maxnreg = 64
// CHECK-LABEL: gpu.func @dynsoftmax_2(
// CHECK-SAME: nvvm.maxnreg = 128
// CHECK-COUNT-16: llvm.load {{.*}} -> f32
// CHECK-NOT: llvm.load
// CHECK: gpu.shuffle xor
// CHECK-LABEL: gpu.func @dynsoftmax_3(
// CHECK-LABEL: func.func @dynsoftmax(
// CHECK: %[[K:.*]] = memref.dim %arg0, %c1
// CHECK-DAG: %[[SHORT:.*]] = arith.cmpi ule, %[[K]], %c16384
// CHECK-DAG: %[[NONEMPTY:.*]] = arith.cmpi uge, %[[K]], %c1
// CHECK: %[[FITS:.*]] = arith.andi %[[NONEMPTY]], %[[SHORT]]
// CHECK: %[[KEEP:.*]] = arith.andi %[[VEC:.*]], %[[FITS]]
// CHECK: fuser.launch @dynsoftmax_kernels::@dynsoftmax_0
// CHECK-DAG: %[[UPTO:.*]] = arith.cmpi ule, %[[K]], %c32768
// CHECK-DAG: %[[FROM:.*]] = arith.cmpi uge, %[[K]], %c16385
// CHECK: %[[FITS2:.*]] = arith.andi %[[FROM]], %[[UPTO]]
// CHECK: %[[KEEP2:.*]] = arith.andi %[[VEC]], %[[FITS2]]
// CHECK: fuser.launch @dynsoftmax_kernels::@dynsoftmax_1 {{.*}}block(%c1024, %c1, %c1)
// CHECK: %[[EITHER:.*]] = arith.ori %[[KEEP]], %[[KEEP2]]
// CHECK: %[[SCALAR_FITS:.*]] = arith.cmpi ule, %[[K]], %c8192
// CHECK: %[[SCALAR_LEN:.*]] = arith.andi %[[NONEMPTY]], %[[SCALAR_FITS]]
// CHECK: %[[NOT_VEC:.*]] = arith.xori %[[EITHER]], %true
// CHECK: %[[SCALAR:.*]] = arith.andi %[[NOT_VEC]], %[[SCALAR_LEN]]
// CHECK: fuser.launch @dynsoftmax_kernels::@dynsoftmax_2
// CHECK: %[[ANY:.*]] = arith.ori %[[EITHER]], %[[SCALAR]]
// CHECK: %[[REREAD:.*]] = arith.xori %[[ANY]], %true
// CHECK: fuser.launch @dynsoftmax_kernels::@dynsoftmax_3
func.func @dynsoftmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fuser.softmax %x dim = 1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A narrow kept dim: 32 bf16 columns are 4 units of 8, so the block has 4
// threads along them and 32 along the rows (not 32 x 8, where 28 threads
// would repeat the last unit's loads).
// CHECK-LABEL: func.func @narrow(
// CHECK: fuser.launch @narrow_kernels::@narrow_0 grid({{.*}}) block(%c4, %c32, %c1)
func.func @narrow(%x: tensor<2048x32xbf16>) -> tensor<32xf32> {
  %f = fuser.cast %x : tensor<2048x32xbf16> to tensor<2048x32xf32>
  %0 = fuser.sum %f dims = [0] : tensor<2048x32xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// Softmax over dim 0 of 100 rows: an outer normalization, one kernel. Each
// block holds whole columns: 8 threads along the 1000 columns (2 bf16 lanes
// each, for at least one column tile per SM), 16 rows of threads, each
// thread 7 positions of its columns (the last one past row 99 reads row 99
// again and neither counts nor stores it). After each pass the rows of
// threads meet in shared memory and every thread combines all 16 rows in
// row order.
// CHECK-LABEL: gpu.func @softmax_dim0_0(
// CHECK-SAME: workgroup(%[[MAXS:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>, %[[SUMS:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[TY:.*]] = gpu.thread_id y
// CHECK: scf.for
// CHECK: arith.cmpi ult, %{{.*}}, %c100
// CHECK-COUNT-7: llvm.load {{.*}} -> vector<2xbf16>
// CHECK: memref.store %{{.*}}, %[[MAXS]][%[[TY]], %{{.*}}]
// CHECK: gpu.barrier
// CHECK-COUNT-32: memref.load %[[MAXS]]
// CHECK: gpu.barrier
// CHECK-NOT: llvm.load {{.*}} -> vector<2xbf16>
// CHECK: memref.store %{{.*}}, %[[SUMS]][%[[TY]], %{{.*}}]
// CHECK: gpu.barrier
// CHECK-COUNT-32: memref.load %[[SUMS]]
// CHECK: gpu.barrier
// CHECK-COUNT-7: llvm.store {{.*}} : vector<2xbf16>, !llvm.ptr
// CHECK-NOT: gpu.func @softmax_dim0_1(
// CHECK-LABEL: func.func @softmax_dim0(
// CHECK: fuser.launch @softmax_dim0_kernels::@softmax_dim0_0 grid({{.*}}) block(%c8, %c16, %c1)
// CHECK-NOT: fuser.launch
func.func @softmax_dim0(%x: tensor<100x1000xbf16>) -> tensor<100x1000xbf16> {
  %0 = fuser.softmax %x dim = 0 : tensor<100x1000xbf16>
  return %0 : tensor<100x1000xbf16>
}

// -----

// Columns of no positions: the outer normalization is planned as columns of
// one position whose loops run no times (the plan divided by a block height
// of 0 and the compiler died of SIGFPE: random fusion seed 580).
// CHECK-LABEL: gpu.func @softmax_empty_columns_0(
// CHECK-LABEL: func.func @softmax_empty_columns(
// CHECK: fuser.launch @softmax_empty_columns_kernels::@softmax_empty_columns_0 grid({{.*}}) block(%c{{[1-9][0-9]*}}, %c{{[1-9][0-9]*}}, %c1)
func.func @softmax_empty_columns(%x: tensor<0x64xf32>) -> tensor<0x64xf32> {
  %0 = fuser.softmax %x dim = 0 : tensor<0x64xf32>
  return %0 : tensor<0x64xf32>
}
