// fuser-lower-kernels-to-nvvm: the workgroup attributions of a kernel
// marked fuser.dynamic_shared become views of its dynamic shared memory, in
// order, each 16-byte aligned (the 20 bytes of the first put the second at
// 32), so that a block may use more than the 48 KiB of static shared memory.
// An unmarked kernel keeps static shared memory.
// RUN: fuser-opt %s --pass-pipeline='builtin.module(gpu.module(fuser-lower-kernels-to-nvvm))' | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @m {
    // CHECK-DAG: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    // CHECK-NOT: @__wg_dynamic
    // CHECK-LABEL: llvm.func @dynamic(
    // CHECK-DAG: %[[AT32:.*]] = llvm.mlir.constant(32 : index) : i64
    // CHECK-DAG: %[[BASE:.*]] = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
    // CHECK: llvm.getelementptr %{{.*}}[%[[AT32]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
    gpu.func @dynamic(%v: f32) workgroup(%a : memref<5xf32, #gpu.address_space<workgroup>>,
                                        %b : memref<65536xf32, #gpu.address_space<workgroup>>)
        kernel attributes {fuser.dynamic_shared} {
      %t = gpu.thread_id x
      memref.store %v, %a[%t] : memref<5xf32, #gpu.address_space<workgroup>>
      memref.store %v, %b[%t] : memref<65536xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
    // CHECK-LABEL: llvm.func @static(
    // CHECK: llvm.mlir.addressof @__wg_static
    gpu.func @static(%v: f32) workgroup(%a : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %t = gpu.thread_id x
      memref.store %v, %a[%t] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
