// RUN: fuser-opt %s -split-input-file --fuser-segment | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-segment=dump 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP

// A fusion of pointwise-class ops is one segment.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: fuser.schedulers = ["pointwise"]
// CHECK: fuser.broadcast {{.*}} {fuser.segment = 0 : i64}
// CHECK: fuser.add {{.*}} {fuser.segment = 0 : i64}
// CHECK: fuser.exp {{.*}} {fuser.segment = 0 : i64}
// DUMP: fusion @pointwise: 1 segment
// DUMP-NEXT: segment 0: pointwise, 3 ops
func.func @pointwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = fuser.broadcast %b dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %1 = fuser.add %x, %0 : tensor<4x8xf32>
  %2 = fuser.exp %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
