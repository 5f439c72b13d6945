// A split reduction's last-block protocol on the GPU: the CPU emulation's
// fuser.cross_block mark is dropped, the device-scope fence becomes
// fence.acq_rel.gpu and the counter's add a relaxed atom.add.u32.
// RUN: fuser-opt %s --pass-pipeline='builtin.module(gpu.module(fuser-lower-kernels-to-nvvm))' | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --pass-pipeline='builtin.module(gpu.module(fuser-lower-kernels-to-nvvm),fuser-serialize-kernels)' | FileCheck %s --check-prefix=PTX

// NVVM-LABEL: llvm.func @arrive(
// NVVM-NOT: fuser.cross_block
// NVVM: llvm.fence syncscope("device") acq_rel
// NVVM: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// PTX: st.global.b32
// PTX: fence.acq_rel.gpu;
// PTX: atom.global.add.u32
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @arrive(%part: !llvm.ptr {llvm.noalias}, %cnt: !llvm.ptr {llvm.noalias}) kernel {
      %t = gpu.thread_id x
      %i = arith.index_castui %t : index to i32
      %one = arith.constant 1 : i32
      %v = arith.constant 1.0 : f32
      %p = llvm.getelementptr %part[%i] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      llvm.store %v, %p {fuser.cross_block} : f32, !llvm.ptr
      llvm.fence syncscope("device") acq_rel
      %c = llvm.getelementptr %cnt[0] : (!llvm.ptr) -> !llvm.ptr, i32
      %old = llvm.atomicrmw add %c, %one syncscope("device") monotonic : !llvm.ptr, i32
      %f = arith.sitofp %old : i32 to f32
      llvm.store %f, %p : f32, !llvm.ptr
      gpu.return
    }
  }
}
