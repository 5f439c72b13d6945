// fuser-lower-kernels-to-nvvm: a kernel whose constants fold one level of a
// chain per round of the greedy rewrite (a row of zeros, selected lane by
// lane, as isnan of an i1 input makes) takes more rounds than the driver's
// limit. That is not an error: the IR is valid and the conversion after it
// catches anything left. It failed here without a word (random fusion seed
// 455).
// RUN: fuser-opt %s --pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf,fuser-lower-kernels-to-nvvm))' | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @m {
    // CHECK-LABEL: llvm.func @zeros
    // CHECK-NOT: arith.
    // CHECK: llvm.store
    gpu.func @zeros(%out: !llvm.ptr, %n: i32, %t: i32) kernel {
      %go = arith.cmpi ult, %t, %n : i32
      scf.if %go {
      %z = arith.constant dense<0.000000e+00> : vector<8xf32>
      %k0 = arith.constant 0 : i32
      %i0 = arith.addi %t, %k0 : i32
      %c0 = arith.cmpi ult, %i0, %n : i32
      %a0 = arith.addf %z, %z : vector<8xf32>
      %v0 = arith.select %c0, %a0, %z : vector<8xf32>
      %k1 = arith.constant 512 : i32
      %i1 = arith.addi %t, %k1 : i32
      %c1 = arith.cmpi ult, %i1, %n : i32
      %a1 = arith.addf %v0, %z : vector<8xf32>
      %v1 = arith.select %c1, %a1, %v0 : vector<8xf32>
      %k2 = arith.constant 1024 : i32
      %i2 = arith.addi %t, %k2 : i32
      %c2 = arith.cmpi ult, %i2, %n : i32
      %a2 = arith.addf %v1, %z : vector<8xf32>
      %v2 = arith.select %c2, %a2, %v1 : vector<8xf32>
      %k3 = arith.constant 1536 : i32
      %i3 = arith.addi %t, %k3 : i32
      %c3 = arith.cmpi ult, %i3, %n : i32
      %a3 = arith.addf %v2, %z : vector<8xf32>
      %v3 = arith.select %c3, %a3, %v2 : vector<8xf32>
      %k4 = arith.constant 2048 : i32
      %i4 = arith.addi %t, %k4 : i32
      %c4 = arith.cmpi ult, %i4, %n : i32
      %a4 = arith.addf %v3, %z : vector<8xf32>
      %v4 = arith.select %c4, %a4, %v3 : vector<8xf32>
      %k5 = arith.constant 2560 : i32
      %i5 = arith.addi %t, %k5 : i32
      %c5 = arith.cmpi ult, %i5, %n : i32
      %a5 = arith.addf %v4, %z : vector<8xf32>
      %v5 = arith.select %c5, %a5, %v4 : vector<8xf32>
      %k6 = arith.constant 3072 : i32
      %i6 = arith.addi %t, %k6 : i32
      %c6 = arith.cmpi ult, %i6, %n : i32
      %a6 = arith.addf %v5, %z : vector<8xf32>
      %v6 = arith.select %c6, %a6, %v5 : vector<8xf32>
      %k7 = arith.constant 3584 : i32
      %i7 = arith.addi %t, %k7 : i32
      %c7 = arith.cmpi ult, %i7, %n : i32
      %a7 = arith.addf %v6, %z : vector<8xf32>
      %v7 = arith.select %c7, %a7, %v6 : vector<8xf32>
      %k8 = arith.constant 4096 : i32
      %i8 = arith.addi %t, %k8 : i32
      %c8 = arith.cmpi ult, %i8, %n : i32
      %a8 = arith.addf %v7, %z : vector<8xf32>
      %v8 = arith.select %c8, %a8, %v7 : vector<8xf32>
      %k9 = arith.constant 4608 : i32
      %i9 = arith.addi %t, %k9 : i32
      %c9 = arith.cmpi ult, %i9, %n : i32
      %a9 = arith.addf %v8, %z : vector<8xf32>
      %v9 = arith.select %c9, %a9, %v8 : vector<8xf32>
      %k10 = arith.constant 5120 : i32
      %i10 = arith.addi %t, %k10 : i32
      %c10 = arith.cmpi ult, %i10, %n : i32
      %a10 = arith.addf %v9, %z : vector<8xf32>
      %v10 = arith.select %c10, %a10, %v9 : vector<8xf32>
      %k11 = arith.constant 5632 : i32
      %i11 = arith.addi %t, %k11 : i32
      %c11 = arith.cmpi ult, %i11, %n : i32
      %a11 = arith.addf %v10, %z : vector<8xf32>
      %v11 = arith.select %c11, %a11, %v10 : vector<8xf32>
      %k12 = arith.constant 6144 : i32
      %i12 = arith.addi %t, %k12 : i32
      %c12 = arith.cmpi ult, %i12, %n : i32
      %a12 = arith.addf %v11, %z : vector<8xf32>
      %v12 = arith.select %c12, %a12, %v11 : vector<8xf32>
      %k13 = arith.constant 6656 : i32
      %i13 = arith.addi %t, %k13 : i32
      %c13 = arith.cmpi ult, %i13, %n : i32
      %a13 = arith.addf %v12, %z : vector<8xf32>
      %v13 = arith.select %c13, %a13, %v12 : vector<8xf32>
      %k14 = arith.constant 7168 : i32
      %i14 = arith.addi %t, %k14 : i32
      %c14 = arith.cmpi ult, %i14, %n : i32
      %a14 = arith.addf %v13, %z : vector<8xf32>
      %v14 = arith.select %c14, %a14, %v13 : vector<8xf32>
      %k15 = arith.constant 7680 : i32
      %i15 = arith.addi %t, %k15 : i32
      %c15 = arith.cmpi ult, %i15, %n : i32
      %a15 = arith.addf %v14, %z : vector<8xf32>
      %v15 = arith.select %c15, %a15, %v14 : vector<8xf32>
      llvm.store %v15, %out : vector<8xf32>, !llvm.ptr
      }
      gpu.return
    }
  }
}
