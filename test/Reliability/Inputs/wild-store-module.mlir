// A kernel that passes the module check but stores 400 MB past its buffer:
// the emulator's bounds checks stop it (the store is skipped and reported).
gpu.module @f_kernels {
  gpu.func @f_0(%x: !llvm.ptr, %y: !llvm.ptr, %n: i32) kernel {
    %far = arith.constant 100000000 : i32
    %p = llvm.getelementptr %y[%far] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    %v = arith.constant 1.0 : f32
    llvm.store %v, %p : f32, !llvm.ptr
    gpu.return
  }
}
