// A kernel whose 16-byte vector load says it is 24-aligned: LLVM would
// round that to 16 and the check would test 24 (a crash on the host).
// Refused before anything is compiled.
gpu.module @f_kernels {
  gpu.func @f_0(%x: !llvm.ptr, %y: !llvm.ptr, %n: i32) kernel {
    %one = arith.constant 10 : i32
    %p = llvm.getelementptr %x[%one] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    %v = llvm.load %p {alignment = 24 : i64} : !llvm.ptr -> vector<4xf32>
    %q = llvm.getelementptr %y[%one] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    llvm.store %v, %q {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr
    gpu.return
  }
}
