// #fuser.schedule: the syntax round-trips, the entries print in the key
// table's order whatever order they are written in (Schedule.h), and an
// empty schedule is allowed (a segment left to the heuristic).
// RUN: fuser-opt %s | FileCheck %s
// RUN: fuser-opt %s | fuser-opt | FileCheck %s

// CHECK-LABEL: func.func @on_fusion
// CHECK-SAME: fuser.schedule = #fuser.schedule<pointwise.block = 128, pointwise.units = 2>
func.func @on_fusion(%a: tensor<8xf32>) -> tensor<8xf32>
    attributes {fuser.schedule = #fuser.schedule<pointwise.units = 2, pointwise.block = 128>} {
  %0 = fuser.exp %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// CHECK-LABEL: func.func @per_segment
// CHECK-SAME: fuser.schedules = [#fuser.schedule<>, #fuser.schedule<innerouter.rows = 16, innerouter.min_blocks_per_sm = 0, innerouter.max_registers = 64>]
func.func @per_segment(%a: tensor<8xf32>) -> tensor<8xf32>
    attributes {fuser.schedules = [#fuser.schedule<>, #fuser.schedule<innerouter.max_registers = 64, innerouter.rows = 16, innerouter.min_blocks_per_sm = 0>]} {
  %0 = fuser.exp %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// A decision for one segment alone (KEY[SEGMENT]) prints after every
// segment's, by segment (numerically), each in the table's order.
// CHECK-LABEL: func.func @one_segment
// CHECK-SAME: fuser.schedule = #fuser.schedule<reduction.block = 128, pointwise.block[2] = 64, reduction.block[2] = 512, reduction.waves[10] = 2>
func.func @one_segment(%a: tensor<8xf32>) -> tensor<8xf32>
    attributes {fuser.schedule = #fuser.schedule<reduction.waves[10] = 2, reduction.block[2] = 512, reduction.block = 128, pointwise.block[2] = 64>} {
  %0 = fuser.exp %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}
