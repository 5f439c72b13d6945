// Float fmod, remainder and floor division compute C's fmod exactly with
// fuser's own arithmetic (ElementwiseEmitter.cpp, exactFmod): arith.remf
// would lower to a call of libdevice's __nv_fmodf / __nv_fmod, which fuser
// never links, and the driver would refuse the PTX at load. Values:
// test/oracle's elementwise suite and tools/fuserc/fmod-exact.test. The
// only calls are of fuser's own helper beside the kernels (the steps of a
// large quotient, out of line): nothing is declared .extern.
// RUN: fuser-opt %s --fuser-compile | FileCheck %s

// CHECK: gpu.binary @fmods_kernels
// CHECK-NOT: __nv_
// CHECK-NOT: .extern
// CHECK: __fuser_fmod_rare_f32
// CHECK-NOT: __nv_
// CHECK-NOT: .extern
// CHECK: func.func @fmods
func.func @fmods(%a: tensor<1000xf32>, %b: tensor<1000xf32>, %c: tensor<64xf64>, %d: tensor<64xf64>,
                 %h: tensor<100xbf16>, %k: tensor<100xbf16>)
    -> (tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<64xf64>, tensor<64xf64>, tensor<100xbf16>) {
  %0 = fuser.fmod %a, %b : tensor<1000xf32>
  %1 = fuser.remainder %a, %b : tensor<1000xf32>
  %2 = fuser.div %a, %b rounding_mode = floor : tensor<1000xf32>
  %3 = fuser.fmod %c, %d : tensor<64xf64>
  %4 = fuser.remainder %c, %d : tensor<64xf64>
  %5 = fuser.fmod %h, %k : tensor<100xbf16>
  return %0, %1, %2, %3, %4, %5 : tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<64xf64>, tensor<64xf64>, tensor<100xbf16>
}
