// A kernel with a form of sm_89's fp8 conversion that fuser never emits
// (relu): the emulator computes only the form fuser emits, so it refuses.
gpu.module @f_kernels {
  gpu.func @f_0(%x: !llvm.ptr, %y: !llvm.ptr, %n: i32) kernel {
    %v = arith.constant 1.0 : f32
    %c = nvvm.convert.f32x2.to.f8x2 %v, %v {relu = true, rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
    gpu.return
  }
}
