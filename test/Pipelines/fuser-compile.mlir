// fuser-compile takes fusions to PTX: 128-bit read-only loads, 128-bit
// stores, no local memory, no libdevice calls.
// RUN: fuser-opt %s --fuser-compile | FileCheck %s
// RUN: fuser-opt %s --fuser-compile="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: fuser-opt %s --fuser-compile="chip=sm_90 ptx=80" | FileCheck %s --check-prefix=PTX80

// CHECK: gpu.binary @exp_add_kernels
// CHECK-SAME: chip = "sm_90", features = "+ptx78"
// CHECK-SAME: .target sm_90
// CHECK-SAME: ld.global.nc.v4.b32
// CHECK-SAME: st.global.v4.b32
// CHECK-NOT: .local
// CHECK-NOT: __nv_
// CHECK: func.func @exp_add
// CHECK: fuser.launch @exp_add_kernels::@exp_add_0
// SM80: features = "+ptx70"
// SM80-SAME: .target sm_80
// PTX80: features = "+ptx80"
// PTX80-SAME: .version 8.0
func.func @exp_add(%x: tensor<1024x4096xf32>, %y: tensor<1024x4096xf32>) -> tensor<1024x4096xf32> {
  %0 = fuser.add %x, %y : tensor<1024x4096xf32>
  %1 = fuser.mul %0, %x : tensor<1024x4096xf32>
  return %1 : tensor<1024x4096xf32>
}
