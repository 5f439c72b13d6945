// A kernel whose 16-byte vector load, marked 16-aligned, starts at element
// 1: inside the buffer, but not aligned (a GPU faults; the emulator's host
// code took the alignment on trust and crashed on a CPU without AVX).
gpu.module @f_kernels {
  gpu.func @f_0(%x: !llvm.ptr, %y: !llvm.ptr, %n: i32) kernel {
    %one = arith.constant 1 : i32
    %p = llvm.getelementptr %x[%one] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
    %q = llvm.getelementptr %y[%one] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    llvm.store %v, %q {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr
    gpu.return
  }
}
