// fuser-serialize-kernels and the helper functions beside the kernels (the
// math library's rare paths, MathExpansion.h). A helper that a piece calls
// from two places or more is `noinline`: its code is in the PTX once, not
// at every call; one called once is inlined and leaves no copy. Compiled
// kernel by kernel, each kernel gets its own copy of a helper that several
// kernels call, renamed `<kernel>__<helper>`, so that the joined PTX defines
// every name once.
// RUN: fuser-opt %s --fuser-serialize-kernels | FileCheck %s --check-prefix=SPLIT
// RUN: fuser-opt %s --mlir-disable-threading --fuser-serialize-kernels | FileCheck %s --check-prefix=WHOLE

// SPLIT: gpu.binary @m
// SPLIT-SAME: .func  (.param .b32 func_retval0) a____fuser_h(
// SPLIT-SAME: .entry a(
// SPLIT-SAME: call.uni (retval0), a____fuser_h,
// SPLIT-SAME: call.uni (retval0), a____fuser_h,
// SPLIT-NOT: .func
// SPLIT-NOT: call.uni
// SPLIT-SAME: .entry b(
// SPLIT-NOT: .func
// SPLIT-NOT: call.uni

// Whole, the helper has three calls: out of line.
// WHOLE: gpu.binary @m
// WHOLE-SAME: .func  (.param .b32 func_retval0) __fuser_h(
// WHOLE-SAME: .entry a(
// WHOLE-SAME: call.uni (retval0), __fuser_h,
// WHOLE-SAME: call.uni (retval0), __fuser_h,
// WHOLE-SAME: .entry b(
// WHOLE-SAME: call.uni (retval0), __fuser_h,
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx78">] {
    llvm.func internal @__fuser_h(%x: f32) -> f32 {
      %c = llvm.mlir.constant(3.0 : f32) : f32
      %y = llvm.fmul %x, %x : f32
      %z = llvm.intr.fma(%y, %c, %x) : (f32, f32, f32) -> f32
      llvm.return %z : f32
    }
    llvm.func @a(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.load %p : !llvm.ptr -> f32
      %r = llvm.call @__fuser_h(%v) : (f32) -> f32
      %s = llvm.call @__fuser_h(%r) : (f32) -> f32
      llvm.store %s, %p : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @b(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.load %p : !llvm.ptr -> f32
      %r = llvm.call @__fuser_h(%v) : (f32) -> f32
      llvm.store %r, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}
