// fuser-schedule's schedule option: forced pointwise decisions change the
// kernel's loop and the launch, never the values (test/tools/fuserc/
// schedule.test runs them), and a bad key or value is an error naming it.
// RUN: fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.units=2,pointwise.block=128"' --fuser-emit-kernels --canonicalize --cse | FileCheck %s
// RUN: fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.waves=0"' --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=NOCAP
// RUN: fuser-opt %s --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=DEFAULT
// RUN: not fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.block=100"' --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.units=9"' --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=UNITS
// RUN: not fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.unroll=2"' --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.units=2,pointwise.units=4"' --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.waves"' --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.vector_bytes=8"' --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=BYTES8
// RUN: fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.vector_bytes=4"' --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=BYTES4
// RUN: not fuser-opt %s --fuser-segment '--fuser-schedule=schedule="pointwise.vector_bytes=32"' --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=BYTES32

// Two vector units per thread per step, 128 threads: whole chunks of 256
// units (3 of the 1000), both units' loads and arithmetic before either
// store; the other 232 units take the one-unit loop, then the scalar tail.
// CHECK-LABEL: gpu.func @flat_0
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: scf.for %[[C:.*]] = %[[BID:.*]] to %c3_i32 step %[[GRID:.*]] : i32 {
// CHECK:   %[[BASE:.*]] = arith.muli %[[C]], %c256_i32
// CHECK:   llvm.load {{.*}} -> vector<4xf32>
// CHECK:   llvm.load {{.*}} -> vector<4xf32>
// CHECK:   arith.subf
// CHECK-NOT: llvm.store
// CHECK:   arith.addi {{.*}}, %c128_i32
// CHECK:   llvm.load {{.*}} -> vector<4xf32>
// CHECK:   llvm.load {{.*}} -> vector<4xf32>
// CHECK:   arith.subf
// CHECK:   llvm.store {{.*}} : vector<4xf32>
// CHECK:   llvm.store {{.*}} : vector<4xf32>
// CHECK: }
// CHECK: scf.for {{.*}} to %c1000_i32
// CHECK: scf.for {{.*}} to %c4003_i32
// The plan: a block per 256 units, at most eight waves of 128-thread
// blocks (132 SMs x 16 blocks a wave).
// CHECK-LABEL: func.func @flat
// CHECK: %[[N:.*]] = arith.select
// CHECK: %[[B:.*]] = arith.ceildivui %[[N]], %c256
// CHECK: %[[G:.*]] = arith.minui %[[B]], %c16896
// CHECK: fuser.launch @flat_kernels::@flat_0 grid(%[[G]], %c1, %c1) block(%c128, %c1, %c1)

// No cap: a block per 256 units, each thread one unit.
// NOCAP-LABEL: func.func @flat
// NOCAP: %[[N:.*]] = arith.select
// NOCAP-NOT: arith.minui
// NOCAP: %[[B:.*]] = arith.ceildivui %[[N]], %c256
// NOCAP-NOT: arith.minui
// NOCAP: fuser.launch @flat_kernels::@flat_0 grid(%[[B]], %c1, %c1) block(%c256, %c1, %c1)

// The default: 256 threads, one unit per step, eight waves (132 x 8 blocks
// a wave).
// DEFAULT-LABEL: gpu.func @flat_0
// DEFAULT-SAME: known_block_size = array<i32: 256, 1, 1>
// DEFAULT-NOT: %c3_i32
// DEFAULT-LABEL: func.func @flat
// DEFAULT: arith.minui {{.*}}, %c8448

// pointwise.vector_bytes: 8-byte accesses are two f32 lanes; 4 bytes,
// one lane, is the scalar loop alone (no flag, no vector path).
// BYTES8-LABEL: gpu.func @flat_0
// BYTES8-NOT: vector<4xf32>
// BYTES8: llvm.load {{.*}} -> vector<2xf32>
// BYTES8-NOT: vector<4xf32>
// BYTES8: llvm.store {{.*}} : vector<2xf32>
// BYTES8-NOT: vector<4xf32>
// BYTES8-LABEL: func.func @flat
// BYTES4-LABEL: gpu.func @flat_0
// BYTES4-NOT: vector<
// BYTES4-LABEL: func.func @flat
// BYTES32: error: schedule option: key 'pointwise.vector_bytes' (the widest access of a pointwise kernel in bytes: lanes = this / the narrowest contiguous element's bytes) must be a power of two from 1 to 16, got '32'

// BLOCK: error: schedule option: key 'pointwise.block' (threads per block of a pointwise kernel) must be a power of two from 32 to 1024, got '100'
// UNITS: error: schedule option: key 'pointwise.units' (vector units per thread per loop step of a pointwise kernel) must be an integer from 1 to 8, got '9'
// UNKNOWN: error: schedule option: unknown key 'pointwise.unroll'; known: pointwise.block, pointwise.units, pointwise.waves, pointwise.vector_bytes, transpose.tile, transpose.rows, transpose.waves, reduction.block, reduction.waves, reduction.threads, reduction.splits, reduction.column_threads, reduction.column_rows, reduction.vector_bytes, innerouter.rows, innerouter.min_blocks_per_sm, innerouter.max_blocks_per_sm, innerouter.min_threads, innerouter.max_registers, scan.block, scan.waves or kernel.index_bits
// TWICE: error: schedule option: key 'pointwise.units' is given twice
// NOVALUE: error: schedule option: key 'pointwise.waves' (a pointwise kernel's grid cap in full waves (0: no cap)) must be an integer from 0 to 64, got ''
func.func @flat(%x: tensor<4003xf32>, %y: tensor<4003xf32>) -> tensor<4003xf32> {
  %0 = fuser.sub %x, %y : tensor<4003xf32>
  return %0 : tensor<4003xf32>
}
