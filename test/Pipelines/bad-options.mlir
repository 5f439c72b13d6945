// Bad target options end in a diagnostic, not a crash.
// RUN: not fuser-opt %s --fuser-compile="chip=sm_70" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not fuser-opt %s --fuser-compile="index-bits=16" 2>&1 | FileCheck %s --check-prefix=BITS
// CHIP: error: unknown chip 'sm_70'; expected sm_80, sm_89, sm_90 or sm_100
// BITS: error: index-bits must be 0, 32 or 64, got 16
// RUN: not fuser-opt %s --fuser-compile="math=exact" 2>&1 | FileCheck %s --check-prefix=MATH
// MATH: error: math must be fast or precise, got 'exact'
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
