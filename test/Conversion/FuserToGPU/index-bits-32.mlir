// index-bits 32 (or a segment's kernel.index_bits = 32) forces 32-bit index
// math, which holds below 2^31 - 2^24 elements: a static tensor above that
// fails the compile, and sizes known only at launch are checked by the plan
// before any launch, never a kernel whose offsets wrap. The key wins over
// the option for its segment.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-schedule --fuser-emit-kernels=index-bits=32 -verify-diagnostics | FileCheck %s
// (The plan's check at launch: test/tools/fuserc/index-bits.test.)

// CHECK-LABEL: func.func @dynamic
// CHECK: fuser.check %{{.*}}, "a kernel compiled for 32-bit index math (index-bits 32 or kernel.index_bits = 32) may address {} elements (a bound: its tensors' sizes, summed where known only at launch); 32-bit index math holds below {}: compile with index-bits 0 or 64"
// CHECK: fuser.launch @dynamic_kernels::@dynamic_0
// CHECK-NOT: fuser.launch
func.func @dynamic(%x: tensor<?xi8>) -> tensor<?xi8> {
  %0 = fuser.neg %x : tensor<?xi8>
  return %0 : tensor<?xi8>
}

// -----

// expected-error @+1 {{segment 0 takes 32-bit index math (index-bits 32 or kernel.index_bits = 32), but 'tensor<3000000000xi8>' has 3000000000 elements; 32-bit index math holds below 2130706432 here (2^31 less twice the threads of the largest grid the segment's schedule launches, at least 2^24; about a third of 2^31 where the grid grows with the size, pointwise.waves = 0): compile with index-bits 0 (per kernel) or 64}}
func.func @too_large(%x: tensor<3000000000xi8>) -> tensor<3000000000xi8> {
  %0 = fuser.neg %x : tensor<3000000000xi8>
  return %0 : tensor<3000000000xi8>
}

// -----

// Below the bound: no check, one 32-bit kernel.
// CHECK-LABEL: func.func @fits
// CHECK-NOT: fuser.check
// CHECK: fuser.launch @fits_kernels::@fits_0
func.func @fits(%x: tensor<2000000000xi8>) -> tensor<2000000000xi8> {
  %0 = fuser.neg %x : tensor<2000000000xi8>
  return %0 : tensor<2000000000xi8>
}

// -----

// The segment's key over the option: 64 bits where the option says 32.
// CHECK-LABEL: gpu.module @key_over_option_kernels
// CHECK: arith.constant 3000000000 : i64
// CHECK-LABEL: func.func @key_over_option
// CHECK-NOT: fuser.check
// CHECK: fuser.launch @key_over_option_kernels::@key_over_option_0
func.func @key_over_option(%x: tensor<3000000000xi8>) -> tensor<3000000000xi8>
    attributes {fuser.schedule = #fuser.schedule<kernel.index_bits = 64>} {
  %0 = fuser.neg %x : tensor<3000000000xi8>
  return %0 : tensor<3000000000xi8>
}
