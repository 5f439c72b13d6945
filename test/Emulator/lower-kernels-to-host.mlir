// RUN: fuser-opt %s --split-input-file --fuser-lower-kernels-to-host --verify-diagnostics | FileCheck %s

// Every global access is checked against the bounds of the parameter it
// addresses through (read from the thread context once per thread); an
// access outside is skipped and reported. GEPs lose inbounds, so that LLVM
// cannot assume the check passes. An access is compiled for the host with
// the alignment the check requires: what it says, at most its own size
// (here its size: it says nothing).
// CHECK-LABEL: func.func private @copy(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr, %[[Y:.*]]: !llvm.ptr, %{{.*}}: i32, %[[CTX:.*]]: !llvm.ptr)
// CHECK: %[[P:.*]] = llvm.getelementptr %[[X]][
// CHECK: %[[A:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr to i64
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: %[[L:.*]] = llvm.load %[[P]] {alignment = 4 : i64}
// CHECK-NEXT: scf.yield %[[L]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[PARAM:.*]] = arith.constant 0 : i32
// CHECK: func.call @fuser_emu_bad_access(%[[CTX]], %[[PARAM]], %[[A]],
// CHECK: llvm.mlir.zero : f32
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: llvm.store %[[V]]
// CHECK-NEXT: } else {
// CHECK: func.call @fuser_emu_bad_access
// CHECK: func.func @copy.entry
// CHECK-SAME: fuser.emu.params = array<i32: -8, -8, 4>
gpu.module @copy_kernels {
  gpu.func @copy(%x: !llvm.ptr, %y: !llvm.ptr, %n: i32) kernel {
    %t = gpu.thread_id x
    %i = arith.index_castui %t : index to i32
    %p = llvm.getelementptr inbounds %x[%i] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    %v = llvm.load %p : !llvm.ptr -> f32
    %q = llvm.getelementptr inbounds %y[%i] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    llvm.store %v, %q : f32, !llvm.ptr
    gpu.return
  }
}

// -----

// A loop adds its trip count to the launch's work before it runs, and is
// skipped past the limit (its results are then its initial values).
// CHECK-LABEL: func.func private @sum(
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: %[[F:.*]] = scf.for
// CHECK: scf.yield %[[F]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: func.call @fuser_emu_work_exceeded
// CHECK-NEXT: scf.yield %{{.*}} : f32
gpu.module @sum_kernels {
  gpu.func @sum(%x: !llvm.ptr, %n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant 0.0 : f32
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (f32) : i32 {
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      %v = llvm.load %p : !llvm.ptr -> f32
      %b = arith.addf %a, %v : f32
      scf.yield %b : f32
    }
    %q = llvm.getelementptr %x[%c0] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    llvm.store %s, %q : f32, !llvm.ptr
    gpu.return
  }
}

// -----

// Shared memory is checked against the attribution indexed.
// CHECK-LABEL: func.func private @shared(
// CHECK: scf.if
// CHECK: llvm.store
// CHECK: arith.constant -1 : i32
// CHECK: func.call @fuser_emu_bad_access
gpu.module @shared_kernels {
  gpu.func @shared(%x: i32) workgroup(%s : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
    %t = gpu.thread_id x
    %v = arith.constant 1.0 : f32
    memref.store %v, %s[%t] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Workgroup memory in dynamic shared memory: the kernel has no static
// shared memory, and its launches must give the 16-aligned bytes of its
// attributions (20 bytes, then 8: 48).
// CHECK-LABEL: func.func @dynamic.entry(
// CHECK-SAME: fuser.emu.dynamic_shared_needed = 48 : i64
// CHECK-SAME: fuser.emu.static_shared = 0 : i64
gpu.module @dynamic_kernels {
  gpu.func @dynamic(%x: i32) workgroup(%a : memref<5xf32, #gpu.address_space<workgroup>>,
                                       %b : memref<2xf32, #gpu.address_space<workgroup>>)
      kernel attributes {fuser.dynamic_shared} {
    %t = gpu.thread_id x
    %v = arith.constant 1.0 : f32
    memref.store %v, %a[%t] : memref<5xf32, #gpu.address_space<workgroup>>
    memref.store %v, %b[%t] : memref<2xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @wild_kernels {
  gpu.func @wild(%x: !llvm.ptr, %c: i1) kernel {
    %z = llvm.mlir.zero : !llvm.ptr
    %p = arith.select %c, %x, %z : !llvm.ptr
    // expected-error @+1 {{the CPU emulation needs every global load and store to address memory through a kernel parameter}}
    %v = llvm.load %p : !llvm.ptr -> f32
    gpu.return
  }
}

// -----

// A split reduction's last block: the fence and the counter's atomic add
// report to the emulator's check of what blocks hand to each other (the
// atomic itself stays, bounds-checked like any global access, without the
// GPU's syncscope); accesses marked fuser.cross_block report their address.
// CHECK-LABEL: func.func private @arrive(
// CHECK-SAME: %[[PART:.*]]: !llvm.ptr, %[[CNT:.*]]: !llvm.ptr, %[[CTX:.*]]: !llvm.ptr)
// CHECK: %[[PA:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
// CHECK: call @fuser_emu_cross_block(%[[CTX]], %[[PA]], %{{.*}}) : (!llvm.ptr, i64, i32) -> ()
// CHECK: llvm.store
// CHECK: call @fuser_emu_fence(%[[CTX]])
// CHECK-NOT: llvm.fence
// CHECK: call @fuser_emu_arrive(%[[CTX]])
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK: call @fuser_emu_cross_block(%[[CTX]]
// CHECK: llvm.load
gpu.module @arrive_kernels {
  gpu.func @arrive(%part: !llvm.ptr, %cnt: !llvm.ptr) kernel {
    %t = gpu.thread_id x
    %i = arith.index_castui %t : index to i32
    %one = arith.constant 1 : i32
    %v = arith.constant 1.0 : f32
    %p = llvm.getelementptr %part[%i] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    llvm.store %v, %p {fuser.cross_block} : f32, !llvm.ptr
    llvm.fence syncscope("device") acq_rel
    %c = llvm.getelementptr %cnt[0] : (!llvm.ptr) -> !llvm.ptr, i32
    %old = llvm.atomicrmw add %c, %one syncscope("device") monotonic : !llvm.ptr, i32
    %w = llvm.load %p {fuser.cross_block} : !llvm.ptr -> f32
    gpu.return
  }
}
