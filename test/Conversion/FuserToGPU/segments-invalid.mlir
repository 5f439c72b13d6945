// RUN: fuser-opt %s -split-input-file --fuser-emit-kernels -verify-diagnostics

// fuser-emit-kernels reads the segments fuser-segment wrote. A segmented
// fusion written by hand names each segment's scheduler in fuser.schedulers
// (the driver refuses such input: test/Transforms/fuser-check-fusions.mlir);
// a name no scheduler has, or a scheduler that does not take the segment's
// ops, is an error, never a crash.
// expected-error @+1 {{segment 0 has scheduler "persistent" in fuser.schedulers; expected pointwise, reduction, normalization, inner-outer, scan, matmul or collective}}
func.func @unknown_scheduler(%x: tensor<8xf32>) -> tensor<8xf32> attributes {fuser.schedulers = ["persistent"]} {
  %0 = fuser.exp %x {fuser.segment = 0 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{segment 0 has scheduler 3 : i64 in fuser.schedulers; expected pointwise, reduction, normalization, inner-outer, scan, matmul or collective}}
func.func @not_a_name(%x: tensor<8xf32>) -> tensor<8xf32> attributes {fuser.schedulers = [3]} {
  %0 = fuser.exp %x {fuser.segment = 0 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @pointwise_as_reduction(%x: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {fuser.schedulers = ["reduction"]} {
  // expected-error @+1 {{'fuser.exp' op segment 0 is a pointwise group, but fuser.schedulers names the reduction scheduler for it}}
  %0 = fuser.exp %x {fuser.segment = 0 : i64} : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @reduction_as_pointwise(%x: tensor<8x16xf32>) -> tensor<8x1xf32> attributes {fuser.schedulers = ["pointwise"]} {
  // expected-error @+1 {{'fuser.exp' op segment 0 is a reduction group, but fuser.schedulers names the pointwise scheduler for it}}
  %0 = fuser.exp %x {fuser.segment = 0 : i64} : tensor<8x16xf32>
  %1 = fuser.sum %0 dims = [1] keepdim = true {fuser.segment = 0 : i64} : tensor<8x16xf32> -> tensor<8x1xf32>
  return %1 : tensor<8x1xf32>
}

// -----

// Two reductions of tensors of different shapes: no one kernel takes them.
// (Of the same element count, [8, 16] and [16, 8], the second's rows would
// be halves of the first's: one kernel, GroupInfo::rowSegments.)
func.func @no_scheduler(%x: tensor<8x16xf32>, %y: tensor<16x7xf32>) -> (tensor<8x1xf32>, tensor<16x1xf32>) attributes {fuser.schedulers = ["reduction"]} {
  // expected-error @+1 {{'fuser.sum' op segment 0 cannot be a reduction kernel}}
  %0 = fuser.sum %x dims = [1] keepdim = true {fuser.segment = 0 : i64} : tensor<8x16xf32> -> tensor<8x1xf32>
  %1 = fuser.sum %y dims = [1] keepdim = true {fuser.segment = 0 : i64} : tensor<16x7xf32> -> tensor<16x1xf32>
  return %0, %1 : tensor<8x1xf32>, tensor<16x1xf32>
}
