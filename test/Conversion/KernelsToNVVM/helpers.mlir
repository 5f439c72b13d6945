// fuser-lower-kernels-to-nvvm: the math library's rare paths, private
// func.func beside the kernels (MathExpansion.h), become internal llvm.func
// and their calls llvm.call.
// RUN: fuser-opt %s --pass-pipeline='builtin.module(gpu.module(fuser-lower-kernels-to-nvvm))' | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @m {
    // CHECK-LABEL: llvm.func internal @__fuser_sin_rare_f32(%{{.*}}: f32) -> f32
    // CHECK: llvm.fmul
    // CHECK: llvm.return
    func.func private @__fuser_sin_rare_f32(%x: f32) -> f32 attributes {llvm.linkage = #llvm.linkage<internal>} {
      %y = arith.mulf %x, %x : f32
      return %y : f32
    }
    // CHECK-LABEL: llvm.func @k
    // CHECK: llvm.call @__fuser_sin_rare_f32(%{{.*}}) : (f32) -> f32
    gpu.func @k(%p: !llvm.ptr) kernel {
      %v = llvm.load %p : !llvm.ptr -> f32
      %r = func.call @__fuser_sin_rare_f32(%v) : (f32) -> f32
      llvm.store %r, %p : f32, !llvm.ptr
      gpu.return
    }
  }
}
