// fuser-schedule's and the segments' schedule errors: each names the
// segment, the key and why.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics --fuser-schedule
// RUN: not fuser-opt %s -split-input-file '--fuser-schedule=schedule="innerouter.min_blocks_per_sm=2"' 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: not fuser-opt %s -split-input-file --fuser-emit-kernels 2>&1 | FileCheck %s --check-prefix=UNSCHEDULED
// RUN: not fuser-opt %s '--fuser-schedule=schedule="pointwise.block=100"' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not fuser-opt %s --fuser-schedule=chip=sm_12 2>&1 | FileCheck %s --check-prefix=CHIP
// OPTION: error: schedule option: key 'pointwise.block' (threads per block of a pointwise kernel) must be a power of two from 32 to 1024, got '100'
// CHIP: error: unknown chip 'sm_12'; expected
// UNSCHEDULED: error: carries fuser.schedule but no fuser.schedules: run fuser-schedule before fuser-emit-kernels

// A pointwise segment given an inner-outer decision.
// expected-error @+1 {{segment 0 is a pointwise segment, but its fuser.schedules entry sets innerouter.rows, a decision of the inner-outer scheduler}}
func.func @wrong_scheduler(%x: tensor<1000xf32>) -> tensor<1000xf32>
    attributes {fuser.schedulers = ["pointwise"], fuser.schedules = [#fuser.schedule<innerouter.rows = 4>]} {
  %0 = fuser.exp %x {fuser.segment = 0 : i64} : tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

// -----

// expected-error @+1 {{fuser.schedules has 2 entries for 1 segments}}
func.func @count(%x: tensor<1000xf32>) -> tensor<1000xf32>
    attributes {fuser.schedulers = ["pointwise"], fuser.schedules = [#fuser.schedule<>, #fuser.schedule<>]} {
  %0 = fuser.exp %x {fuser.segment = 0 : i64} : tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

// -----

// Each legal alone (with the defaults), together a floor above the cap:
// the option's floor of 2 blocks an SM and the fusion's cap of 1.
// CONFLICT: error: segment 0's schedule: innerouter.min_blocks_per_sm (2) is above innerouter.max_blocks_per_sm (1): the grid's floor would exceed its cap
func.func @conflict(%x: tensor<?x512xf32>, %dy: tensor<?x512xf32>) -> (tensor<?x512xf32>, tensor<512xf32>)
    attributes {fuser.schedule = #fuser.schedule<innerouter.max_blocks_per_sm = 1>,
                fuser.schedulers = ["inner-outer"]} {
  %p = fuser.mul %x, %dy {fuser.segment = 0 : i64} : tensor<?x512xf32>
  %s = fuser.sum %p dims = [1] keepdim = true {fuser.segment = 0 : i64} : tensor<?x512xf32> -> tensor<?x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] {fuser.segment = 0 : i64} : tensor<?x1xf32> -> tensor<?x512xf32>
  %dx = fuser.sub %dy, %sb {fuser.segment = 0 : i64} : tensor<?x512xf32>
  %dw = fuser.sum %p dims = [0] {fuser.segment = 0 : i64} : tensor<?x512xf32> -> tensor<512xf32>
  return %dx, %dw : tensor<?x512xf32>, tensor<512xf32>
}

// -----

// A pointwise segment given a reduction decision.
// expected-error @+1 {{segment 0 is a pointwise segment, but its fuser.schedules entry sets reduction.block, a decision of the reduction scheduler}}
func.func @reduction_key_on_pointwise(%x: tensor<1000xf32>) -> tensor<1000xf32>
    attributes {fuser.schedulers = ["pointwise"], fuser.schedules = [#fuser.schedule<reduction.block = 128>]} {
  %0 = fuser.exp %x {fuser.segment = 0 : i64} : tensor<1000xf32>
  return %0 : tensor<1000xf32>
}
