// fuser-serialize-kernels: each kernel of a gpu.module is compiled on its
// own (in parallel) and the PTX joined under one header into one
// gpu.binary, whose object records LLVM's time; each kernel keeps its own workgroup buffer; a module whose
// kernels share a global is compiled whole.
// RUN: fuser-opt %s -split-input-file --fuser-serialize-kernels -verify-diagnostics | FileCheck %s
// Single-threaded, each module compiles whole, to the same kernels:
// RUN: fuser-opt %s -split-input-file --mlir-disable-threading --fuser-serialize-kernels -verify-diagnostics | FileCheck %s

// LLVM's thread time for the module's kernels rides on the object.
// CHECK-LABEL: gpu.binary @two
// CHECK-SAME: properties = {O = 2 : i32, fuser.llvm_middle_end_us = {{[0-9]+}} : i64, fuser.llvm_translate_us = {{[0-9]+}} : i64, fuser.nvptx_back_end_us = {{[0-9]+}} : i64}
// CHECK-SAME: assembly = "
// CHECK-SAME: .version 7.8\0A.target sm_90\0A.address_size 64
// CHECK-NOT: .version
// CHECK-SAME: .entry a(
// CHECK-SAME: .shared .align 4 .b8 wa[16];
// CHECK-NOT: .version
// CHECK-SAME: .entry b(
// CHECK-NOT: wa[16]
// CHECK-SAME: .shared .align 4 .b8 wb[32];
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  gpu.module @two [#nvvm.target<chip = "sm_90", features = "+ptx78">] {
    llvm.mlir.global internal @wa() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<4 x f32>
    llvm.func @a(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %g = llvm.mlir.addressof @wa : !llvm.ptr<3>
      %v = llvm.load volatile %g : !llvm.ptr<3> -> f32
      llvm.store %v, %p : f32, !llvm.ptr
      llvm.return
    }
    llvm.mlir.global internal @wb() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<8 x f32>
    llvm.func @b(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %g = llvm.mlir.addressof @wb : !llvm.ptr<3>
      %v = llvm.load volatile %g : !llvm.ptr<3> -> f32
      llvm.store %v, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}

// -----

// CHECK-LABEL: gpu.binary @shared
// CHECK-SAME: .entry a(
// CHECK-SAME: .entry b(
module attributes {gpu.container_module} {
  gpu.module @shared [#nvvm.target<chip = "sm_90", features = "+ptx78">] {
    llvm.mlir.global internal @w() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<4 x f32>
    llvm.func @a(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %g = llvm.mlir.addressof @w : !llvm.ptr<3>
      %v = llvm.load volatile %g : !llvm.ptr<3> -> f32
      llvm.store %v, %p : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @b(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %g = llvm.mlir.addressof @w : !llvm.ptr<3>
      %v = llvm.load volatile %g : !llvm.ptr<3> -> f32
      llvm.store %v, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @below {{expected exactly one GPU target attribute (nvvm-attach-target)}}
  gpu.module @untargeted {
  }
}

// -----

// A call of a function the module only declares (libdevice's, which fuser
// never links) is an internal error at compile time, not a module that
// ptxas and the driver refuse on a GPU.
// expected-error @below {{compiling the kernels to PTX failed}}
module attributes {gpu.container_module} {
  // expected-error @below {{internal error: the kernels call `__nv_fmodf`, which their PTX declares but does not define: fuser links no library (libdevice, libm)}}
  gpu.module @libdevice [#nvvm.target<chip = "sm_90", features = "+ptx78">] {
    llvm.func @__nv_fmodf(f32, f32) -> f32
    llvm.func @k(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.load %p : !llvm.ptr -> f32
      %r = llvm.call @__nv_fmodf(%v, %v) : (f32, f32) -> f32
      llvm.store %r, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}
