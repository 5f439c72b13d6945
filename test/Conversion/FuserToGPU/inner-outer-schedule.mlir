// fuser-schedule's schedule option on an inner-outer kernel (a row
// normalization and a column sum of one tensor): the innerouter.* keys move
// the grid's bounds, never the chunks of rows whose partials the combine
// adds (their size and the combine's count stay), so the values stay the
// same to the bit (test/tools/fuserc/schedule.test runs them). A bad value
// is an error naming the key.
// RUN: fuser-opt %s --fuser-decompose --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=DEFAULT
// RUN: fuser-opt %s --fuser-decompose --fuser-segment '--fuser-schedule=schedule="innerouter.min_blocks_per_sm=0,innerouter.rows=32"' --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=NOFLOOR
// RUN: fuser-opt %s --fuser-decompose --fuser-segment '--fuser-schedule=schedule="innerouter.min_blocks_per_sm=0,innerouter.rows=16"' --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=ROWS16
// RUN: fuser-opt %s --fuser-decompose --fuser-segment '--fuser-schedule=schedule="innerouter.max_blocks_per_sm=1"' --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=CAP
// RUN: fuser-opt %s --fuser-decompose --fuser-segment '--fuser-schedule=schedule="innerouter.min_threads=128,innerouter.max_registers=48"' --fuser-emit-kernels --canonicalize --cse | FileCheck %s --check-prefix=THREADS
// RUN: not fuser-opt %s --fuser-decompose --fuser-segment '--fuser-schedule=schedule="innerouter.min_blocks_per_sm=9"' --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=FLOOR9
// RUN: not fuser-opt %s --fuser-decompose --fuser-segment '--fuser-schedule=schedule="innerouter.min_threads=96"' --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=THREADS96
// RUN: not fuser-opt %s --fuser-decompose --fuser-segment '--fuser-schedule=schedule="innerouter.max_registers=256"' --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=REGS256
// RUN: not fuser-opt %s --fuser-decompose --fuser-segment '--fuser-schedule=schedule="innerouter.rows=0"' --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=ROWS0

// 256 rows of 512 f32, 8 rows a block at once. The default: a block per 8
// rows (32 blocks), and the floor of one block per SM as far as the rows
// go (256 / 8 = 32 blocks) agrees. 32 chunks of 8 rows (8 rows a block of
// 256 threads holds at once), 32 rows of partials.
// DEFAULT-LABEL: func.func @dxdw(
// DEFAULT: memref.alloc() : memref<16384xf32>
// DEFAULT: fuser.launch @dxdw_kernels::@dxdw_0 grid(%c32, %c1, %c1) block(%c32, %c8, %c1)
// DEFAULT: fuser.launch @dxdw_kernels::@dxdw_1 {{.*}} args(%arg0, %arg1, %arg3, %{{.*}}, %c32 :

// No floor and a block per 32 rows: 8 blocks of 4 chunks each (the rule
// before the H200 measured it, bench/results/variants-io.md); the same 32
// chunks' partials and the same combine.
// NOFLOOR-LABEL: func.func @dxdw(
// NOFLOOR: memref.alloc() : memref<16384xf32>
// NOFLOOR: fuser.launch @dxdw_kernels::@dxdw_0 grid(%c8, %c1, %c1) block(%c32, %c8, %c1)
// NOFLOOR: fuser.launch @dxdw_kernels::@dxdw_1 {{.*}} args(%arg0, %arg1, %arg3, %{{.*}}, %c32 :

// ROWS16-LABEL: func.func @dxdw(
// ROWS16: memref.alloc() : memref<16384xf32>
// ROWS16: fuser.launch @dxdw_kernels::@dxdw_0 grid(%c16, %c1, %c1)
// At least 128 threads a row: 4 values a thread where 32 threads held 16,
// two rows a block at once (256 threads); the row kernel's registers
// capped at 48, the combine's not.
// THREADS-LABEL: gpu.module @dxdw_kernels
// THREADS: gpu.func @dxdw_0({{.*}} kernel attributes {nvvm.maxnreg = 48 : i32}
// THREADS: gpu.func @dxdw_1({{.*}} kernel attributes {known_block_size = array<i32: 32, 8, 1>}
// THREADS-LABEL: func.func @dxdw(
// THREADS: fuser.launch @dxdw_kernels::@dxdw_0 grid(%c32, %c1, %c1) block(%c128, %c2, %c1)
func.func @dxdw(%x: tensor<256x512xf32>, %s: tensor<256x1xf32>) -> (tensor<256x512xf32>, tensor<512xf32>) {
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<256x1xf32> -> tensor<256x512xf32>
  %h = fuser.mul %x, %sb : tensor<256x512xf32>
  %m = fuser.sum %h dims = [1] keepdim = true : tensor<256x512xf32> -> tensor<256x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1] : tensor<256x1xf32> -> tensor<256x512xf32>
  %y = fuser.sub %h, %mb : tensor<256x512xf32>
  %c = fuser.sum %h dims = [0] : tensor<256x512xf32> -> tensor<512xf32>
  return %y, %c : tensor<256x512xf32>, tensor<512xf32>
}

// Rows known at launch: the plan computes the grid, capped at one block
// per SM (132) with max_blocks_per_sm=1 instead of two (264).
// DEFAULT-LABEL: func.func @rows_dynamic(
// DEFAULT: arith.minui {{.*}}, %c264
// CAP-LABEL: func.func @rows_dynamic(
// CAP-NOT: %c264
// CAP: arith.minui {{.*}}, %c132
func.func @rows_dynamic(%x: tensor<?x4096xf32>) -> (tensor<?x4096xf32>, tensor<4096xf32>) {
  %m = fuser.max %x dims = [1] keepdim = true : tensor<?x4096xf32> -> tensor<?x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1] : tensor<?x1xf32> -> tensor<?x4096xf32>
  %y = fuser.sub %x, %mb : tensor<?x4096xf32>
  %c = fuser.sum %x dims = [0] : tensor<?x4096xf32> -> tensor<4096xf32>
  return %y, %c : tensor<?x4096xf32>, tensor<4096xf32>
}

// FLOOR9: error: schedule option: key 'innerouter.min_blocks_per_sm' (an inner-outer kernel's grid floor in blocks per SM, rows permitting) must be an integer from 0 to 8, got '9'
// THREADS96: error: schedule option: key 'innerouter.min_threads' (threads along each register-held row of an inner-outer kernel, at least) must be a power of two from 32 to 512, got '96'
// REGS256: error: schedule option: key 'innerouter.max_registers' (registers a thread of an inner-outer row kernel may use, at most) must be an integer from 32 to 255, got '256'
// ROWS0: error: schedule option: key 'innerouter.rows' (rows each block of an inner-outer kernel walks before the grid grows) must be an integer from 1 to 4096, got '0'
