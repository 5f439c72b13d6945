// The kernel module of one-add.mlir's bundle replaced with one that calls
// libc's system: before, `fuserc run --device cpu` ran the shell command.
gpu.module @f_kernels {
  llvm.func @system(!llvm.ptr) -> i32
  gpu.func @f_0(%x: !llvm.ptr, %y: !llvm.ptr, %n: i32) kernel {
    %cmd = llvm.getelementptr %x[0] : (!llvm.ptr) -> !llvm.ptr, i8
    %r = llvm.call @system(%cmd) : (!llvm.ptr) -> i32
    gpu.return
  }
}
