// KNOWN_FAILURES "emulator-i1-shared-memory" (test/oracle/oracle/known_failures.py).
//
//   build/bin/fuserc run test/oracle/repro/i1_shared_memory.mlir --device cpu --random 1
//
// result0[i] (any x[i, :] == 0) must be result1[i] > 0 (how many x[i, :] are
// 0, summed as i32); on the CPU emulator result0 misses zeros in most
// columns. Reductions whose accumulator is i1 (any, all, max/min of i1)
// combine their warps through an i1 buffer in shared memory, and
// LowerKernelsToHost sizes i1 elements as getIntOrFloatBitWidth() / 8 = 0
// bytes: every element of the buffer is the same byte, and the last warp's
// value wins. --race-check does not see it either (the accesses are 0 bytes
// long). The GPU lowering gives each i1 element its own byte.
func.func @i1_shared_memory(%x: tensor<8x257xi8>) -> (tensor<8xi1>, tensor<8xi32>) {
  %z = fuser.constant 0 : tensor<i8>
  %e = fuser.eq %x, %z : tensor<8x257xi8>, tensor<i8>
  %0 = fuser.any %e dims = [1] : tensor<8x257xi1> -> tensor<8xi1>
  %c = fuser.cast %e : tensor<8x257xi1> to tensor<8x257xi32>
  %1 = fuser.sum %c dims = [1] : tensor<8x257xi32> -> tensor<8xi32>
  return %0, %1 : tensor<8xi1>, tensor<8xi32>
}
