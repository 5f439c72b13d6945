// A kernel that takes a parameter more than the bundle's launch passes: it
// would read a value past the launch's parameter array.
gpu.module @f_kernels {
  gpu.func @f_0(%x: !llvm.ptr, %y: !llvm.ptr, %n: i32, %more: !llvm.ptr) kernel {
    gpu.return
  }
}
