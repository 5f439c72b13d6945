// A kernel that stores at element -1 of its first workgroup buffer, the 4
// bytes just before the block's shared memory: its byte offset -4 plus 4
// wrapped to 0 and passed the emulator's bounds check (heap corruption).
gpu.module @f_kernels {
  gpu.func @f_0(%x: !llvm.ptr, %y: !llvm.ptr, %n: i32) workgroup(%s : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
    %m1 = arith.constant -1 : index
    %v = arith.constant 1.0 : f32
    memref.store %v, %s[%m1] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
