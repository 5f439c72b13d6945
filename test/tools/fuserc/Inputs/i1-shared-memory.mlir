// result0[i] (any x[i, :] == 0) must be result1[i] > 0 (how many x[i, :] are
// 0, summed as i32). Reductions whose accumulator is i1 combine their warps
// through an i1 buffer in shared memory, which the emulator once sized at
// 0 bytes an element, so that the last warp's value won.
func.func @i1_shared_memory(%x: tensor<8x257xi8>) -> (tensor<8xi1>, tensor<8xi32>) {
  %z = fuser.constant 0 : tensor<i8>
  %e = fuser.eq %x, %z : tensor<8x257xi8>, tensor<i8>
  %0 = fuser.any %e dims = [1] : tensor<8x257xi1> -> tensor<8xi1>
  %c = fuser.cast %e : tensor<8x257xi1> to tensor<8x257xi32>
  %1 = fuser.sum %c dims = [1] : tensor<8x257xi32> -> tensor<8xi32>
  return %0, %1 : tensor<8xi1>, tensor<8xi32>
}
