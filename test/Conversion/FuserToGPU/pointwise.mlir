// The pointwise scheduler: kernel shape, vector access, and the plan.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// Same-shape elementwise: the space merges to one flat dim, 128-bit loads
// and stores on the vector path, and one scalar loop that is both the
// vector path's tail and, when the plan's alignment flag says no vectors,
// the whole space (one copy of the scalar code, not two).
// CHECK-LABEL: gpu.module @flat_kernels
// CHECK: gpu.func @flat_0(%[[X:.*]]: !llvm.ptr {llvm.noalias, llvm.readonly}, %[[Y:.*]]: !llvm.ptr {llvm.noalias, llvm.readonly}, %[[O:.*]]: !llvm.ptr {llvm.noalias}, %[[VEC:.*]]: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: %[[ISVEC:.*]] = arith.cmpi ne, %[[VEC]]
// CHECK: scf.if %[[ISVEC]] {
// CHECK:   scf.for %[[U:.*]] = {{.*}} to %c1000_i32 step
// CHECK:     %[[E:.*]] = arith.muli %[[U]], %c4_i32
// CHECK:     llvm.getelementptr inbounds %[[X]][%[[E]]]
// CHECK:     llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK:     llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK:     arith.subf {{.*}} : vector<4xf32>
// CHECK:     llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK: }
// The scalar loop starts past the 1000 vector units (at 4000, the tail of
// 4003 % 4 elements) on the vector path, at the thread's first element
// without it.
// CHECK: %[[TAIL:.*]] = arith.addi %[[FIRST:.*]], %c4000_i32
// CHECK: %[[FROM:.*]] = arith.select %[[ISVEC]], %[[TAIL]], %[[FIRST]]
// CHECK: scf.for %[[S:.*]] = %[[FROM]] to %c4003_i32
// CHECK:   llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NOT: scf.for
// CHECK: gpu.return
// CHECK-LABEL: func.func @flat(
// CHECK-SAME: %[[A0:.*]]: memref<4003xf32> {fuser.name = "x"}, %[[A1:.*]]: memref<4003xf32> {fuser.name = "y"}, %[[R0:.*]]: memref<4003xf32> {fuser.name = "result0"}
// CHECK-SAME: fuser.num_args = 2 : i64, fuser.plan
// CHECK-DAG: %[[AL0:.*]] = fuser.is_aligned %[[A0]], 16
// CHECK-DAG: %[[AL1:.*]] = fuser.is_aligned %[[A1]], 16
// CHECK-DAG: %[[AL2:.*]] = fuser.is_aligned %[[R0]], 16
// CHECK: fuser.launch @flat_kernels::@flat_0 grid(%{{.*}}, %c1, %c1) block(%c256, %c1, %c1) smem(%c0) args(%[[A0]], %[[A1]], %[[R0]], %{{.*}} : memref<4003xf32>, memref<4003xf32>, memref<4003xf32>, index) index_bits [32]
func.func @flat(%x: tensor<4003xf32> {fuser.name = "x"}, %y: tensor<4003xf32> {fuser.name = "y"}) -> tensor<4003xf32> {
  %0 = fuser.sub %x, %y : tensor<4003xf32>
  return %0 : tensor<4003xf32>
}

// -----

// A broadcast row is read with a vector load (it moves with the inner dim);
// a broadcast column is read once per unit as a scalar and kept in a
// register. No broadcast is materialized.
// CHECK-LABEL: gpu.module @bcast_kernels
// CHECK: gpu.func @bcast_0(%[[X:.*]]: !llvm.ptr {{.*}}, %[[ROW:.*]]: !llvm.ptr {{.*}}, %[[COL:.*]]: !llvm.ptr {{.*}}, %[[O:.*]]: !llvm.ptr
// CHECK: scf.for
// CHECK-DAG: %[[I:.*]] = arith.remui %{{.*}}, %c64_i32
// CHECK-DAG: %[[R:.*]] = arith.divui %{{.*}}, %c64_i32
// CHECK-DAG: llvm.getelementptr inbounds %[[ROW]][%[[I]]]
// CHECK-DAG: llvm.getelementptr inbounds %[[COL]][%[[R]]]
// CHECK-DAG: %[[C:.*]] = llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-DAG: %[[RV:.*]] = llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK-DAG: vector.broadcast %[[C]] : f32 to vector<4xf32>
func.func @bcast(%x: tensor<16x64xf32>, %row: tensor<64xf32>, %col: tensor<16x1xf32>) -> tensor<16x64xf32> {
  %r = fuser.broadcast %row dims = [1] : tensor<64xf32> -> tensor<16x64xf32>
  %c = fuser.broadcast %col dims = [0, 1] : tensor<16x1xf32> -> tensor<16x64xf32>
  %0 = fuser.add %x, %r : tensor<16x64xf32>
  %1 = fuser.mul %0, %c : tensor<16x64xf32>
  return %1 : tensor<16x64xf32>
}

// -----

// Dynamic dims: sizes are kernel parameters (the two the kernel indexes
// with: y's dims equal x's, so only x's are passed), the plan checks that
// sizes that meet agree, and both index widths are compiled and picked at
// launch.
// CHECK-LABEL: gpu.func @dyn_0(
// CHECK-SAME: !llvm.ptr {llvm.noalias}, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-LABEL: gpu.func @dyn_1(
// CHECK-SAME: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32) kernel
// CHECK-LABEL: func.func @dyn(
// CHECK-DAG: %[[D0:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[D2:.*]] = memref.dim %arg1, %c0
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[D2]], %[[D0]]
// CHECK: fuser.check %[[EQ]], "dim 0 of arg1 ({}) must equal dim 0 of arg0 ({}), in 'fuser.add' at {{.*}}"(%[[D2]], %[[D0]] : index, index)
// CHECK: fuser.result_dim %arg2[0] = %{{.*}} : memref<?x?xf32>
// CHECK: %[[FITS:.*]] = arith.cmpi slt, %{{.*}}, %c2130706432
// CHECK: %[[RUN32:.*]] = arith.andi %{{.*}}, %[[FITS]]
// CHECK: fuser.launch @dyn_kernels::@dyn_0 {{.*}} if(%[[RUN32]]) {{.*}} index_bits [32, 32, 32]
// CHECK: %[[NOFIT:.*]] = arith.cmpi sge, %{{.*}}, %c2130706432
// CHECK: %[[RUN64:.*]] = arith.andi %{{.*}}, %[[NOFIT]]
// CHECK: fuser.launch @dyn_kernels::@dyn_1 {{.*}} if(%[[RUN64]]) {{.*}} index_bits [64, 64, 32]
func.func @dyn(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = fuser.add %x, %y : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Over 2^31 elements: 64-bit index math only.
// CHECK-LABEL: gpu.func @big_0(
// CHECK-SAME: %{{.*}}: i32) kernel
// CHECK: scf.for {{.*}} : i64
// CHECK: index_bits [32]
func.func @big(%x: tensor<65536x65536xi8>) -> tensor<65536x65536xi8> {
  %0 = fuser.neg %x : tensor<65536x65536xi8>
  return %0 : tensor<65536x65536xi8>
}

// -----

// Bools are bytes in memory: i8 loads compared to 0, i1 results stored as
// bytes, 16 lanes per 128-bit access.
// CHECK-LABEL: gpu.func @bools_0
// CHECK: llvm.load {{.*}} -> vector<16xi8>
// CHECK: arith.cmpi ne, {{.*}} : vector<16xi8>
// CHECK: arith.xori {{.*}} : vector<16xi1>
// CHECK: arith.extui {{.*}} : vector<16xi1> to vector<16xi8>
// CHECK: llvm.store {{.*}} : vector<16xi8>, !llvm.ptr
func.func @bools(%a: tensor<1000xi1>) -> tensor<1000xi1> {
  %0 = fuser.not %a : tensor<1000xi1>
  return %0 : tensor<1000xi1>
}

// -----

// Padding and concatenation choose their source with a branch that is the
// same for every lane of a unit.
// CHECK-LABEL: gpu.func @pad_0
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: scf.if %[[IN]] -> (f32)
// CHECK:   llvm.load
// CHECK: } else {
// CHECK:   scf.yield
func.func @pad(%x: tensor<4x6xf32>, %z: tensor<f32>) -> tensor<4x9xf32> {
  %p = fuser.pad %x, %z low = [0, 1] high = [0, 2] : tensor<4x6xf32>, tensor<f32> -> tensor<4x9xf32>
  return %p : tensor<4x9xf32>
}

// -----

// CHECK-LABEL: gpu.func @concat_0
// CHECK: %[[LT:.*]] = arith.cmpi slt, %{{.*}}, %c3_i32
// CHECK: scf.if %[[LT]] -> (f16)
func.func @concat(%a: tensor<4x3xf16>, %b: tensor<4x5xf16>) -> tensor<4x8xf16> {
  %0 = fuser.concat %a, %b dim = 1 : tensor<4x3xf16>, tensor<4x5xf16> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// Two outputs from one kernel; intermediates stay in registers.
// CHECK-LABEL: gpu.func @two_0(
// CHECK-COUNT-2: llvm.store {{.*}} : vector<8xf16>
// CHECK-NOT: llvm.store {{.*}} vector
// CHECK: scf.for
func.func @two(%x: tensor<64x64xf16>) -> (tensor<64x64xf16>, tensor<64x64xf16>) {
  %0 = fuser.abs %x : tensor<64x64xf16>
  %1 = fuser.relu %0 : tensor<64x64xf16>
  return %0, %1 : tensor<64x64xf16>, tensor<64x64xf16>
}

// -----

// An input read across its contiguous dim goes through a padded 32x33
// shared-memory tile: staged along its contiguous dim, a barrier, then read
// transposed while the output is written along its own contiguous dim.
// CHECK-LABEL: gpu.func @transpose_0(
// CHECK-SAME: workgroup(%[[TILE:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 32, 8, 1>
// CHECK: %[[TX:.*]] = gpu.thread_id x
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     scf.if
// CHECK:       llvm.load
// CHECK:       memref.store %{{.*}}, %[[TILE]][%{{.*}}, %[[TX]]]
// CHECK:   gpu.barrier
// CHECK:   scf.for
// CHECK:     scf.if
// CHECK:       memref.load %[[TILE]][%[[TX]], %{{.*}}]
// CHECK:       arith.addf
// CHECK:       llvm.store
// CHECK:   gpu.barrier
// CHECK: fuser.launch @transpose_kernels::@transpose_0 {{.*}} block(%c32, %c8, %c1)
func.func @transpose(%x: tensor<4x100x70xf32>, %y: tensor<4x70x100xf32>) -> tensor<4x70x100xf32> {
  %t = fuser.permute %x perm = [0, 2, 1] : tensor<4x100x70xf32> -> tensor<4x70x100xf32>
  %0 = fuser.add %t, %y : tensor<4x70x100xf32>
  return %0 : tensor<4x70x100xf32>
}
