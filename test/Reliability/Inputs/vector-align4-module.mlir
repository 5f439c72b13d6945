// A 16-byte store that says it is 4-aligned, at element 1: NVPTX splits it,
// so a GPU does not fault, and neither does the emulator.
gpu.module @f_kernels {
  gpu.func @f_0(%x: !llvm.ptr, %y: !llvm.ptr, %n: i32) kernel {
    %one = arith.constant 1 : i32
    %v = arith.constant dense<2.0> : vector<4xf32>
    %q = llvm.getelementptr %y[%one] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    llvm.store %v, %q {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr
    gpu.return
  }
}
