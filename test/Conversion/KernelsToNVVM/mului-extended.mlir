// fuser-lower-kernels-to-nvvm: a 32-bit extended multiply (Philox's rounds)
// becomes mul.lo and mul.hi in 32 bits, scalar or lane by lane, never the
// 64-bit multiply of upstream's lowering (after InstCombine, NVPTX cannot
// always turn that back into mul.wide.u32).
// RUN: fuser-opt %s --pass-pipeline='builtin.module(gpu.module(fuser-lower-kernels-to-nvvm))' | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @m {
    // CHECK-LABEL: llvm.func @scalar
    // CHECK: llvm.mul %{{.*}}, %{{.*}} : i32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
    // CHECK-NOT: llvm.mul {{.*}} : i64
    // CHECK: llvm.return
    gpu.func @scalar(%a: i32, %b: i32, %out: memref<2xi32>) kernel {
      %lo, %hi = arith.mului_extended %a, %b : i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      memref.store %lo, %out[%c0] : memref<2xi32>
      memref.store %hi, %out[%c1] : memref<2xi32>
      gpu.return
    }
    // CHECK-LABEL: llvm.func @vector
    // CHECK: llvm.mul %{{.*}}, %{{.*}} : vector<2xi32>
    // CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"
    // CHECK-NOT: llvm.mul {{.*}} : vector<2xi64>
    // CHECK: llvm.return
    gpu.func @vector(%a: vector<2xi32>, %b: vector<2xi32>, %out: memref<2xvector<2xi32>>) kernel {
      %lo, %hi = arith.mului_extended %a, %b : vector<2xi32>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      memref.store %lo, %out[%c0] : memref<2xvector<2xi32>>
      memref.store %hi, %out[%c1] : memref<2xvector<2xi32>>
      gpu.return
    }
    // Other widths keep upstream's lowering.
    // CHECK-LABEL: llvm.func @narrow
    // CHECK-NOT: llvm.nvvm.mulhi
    // CHECK: llvm.mul {{.*}} : i32
    // CHECK: llvm.return
    gpu.func @narrow(%a: i16, %b: i16, %out: memref<2xi16>) kernel {
      %lo, %hi = arith.mului_extended %a, %b : i16
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      memref.store %lo, %out[%c0] : memref<2xi16>
      memref.store %hi, %out[%c1] : memref<2xi16>
      gpu.return
    }
  }
}
