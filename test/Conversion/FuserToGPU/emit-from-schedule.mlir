// fuser-emit-kernels builds each segment's kernels from its fuser.schedules
// entry alone: emitting twice from one scheduled module gives the same IR;
// the heuristic's schedule, written out, gives the kernels of no schedule
// at all; and an entry changed by hand changes that segment's kernel.
// (The scheduled module keeps its locations: run-time checks name them.)
// RUN: fuser-opt %s --fuser-segment --fuser-schedule -mlir-print-debuginfo -o %t.scheduled.mlir
// RUN: fuser-opt %t.scheduled.mlir --fuser-emit-kernels -o %t.a.mlir
// RUN: fuser-opt %t.scheduled.mlir --fuser-emit-kernels -o %t.b.mlir
// RUN: cmp %t.a.mlir %t.b.mlir
// RUN: fuser-opt %s --fuser-segment --fuser-emit-kernels -o %t.none.mlir
// RUN: cmp %t.a.mlir %t.none.mlir
// RUN: sed -e 's/pointwise.block = 256, pointwise.units = 1/pointwise.block = 128, pointwise.units = 2/' %t.scheduled.mlir | fuser-opt --fuser-emit-kernels | FileCheck %s
// RUN: FileCheck %s --check-prefix=DEFAULT < %t.a.mlir

// Segment 0 (inner-outer) keeps its schedule; segment 1 (pointwise) takes
// 128 threads and two units a step: the chunk loop over 256 units.
// (@two_0 to @two_3: the inner-outer variants; @two_4 and @two_5: the
// pointwise kernel's 32- and 64-bit index variants.)
// CHECK-LABEL: gpu.func @two_4
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT: arith.muli %[[C]], %c256_i32
// CHECK-LABEL: gpu.func @two_5
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// DEFAULT-LABEL: gpu.func @two_4
// DEFAULT-SAME: known_block_size = array<i32: 256, 1, 1>
// DEFAULT-LABEL: gpu.func @two_5
func.func @two(%x: tensor<?x512xf32>, %dy: tensor<?x512xf32>) -> (tensor<?x512xf32>, tensor<?x512xf32>) {
  %p = fuser.mul %x, %dy : tensor<?x512xf32>
  %s = fuser.sum %p dims = [1] keepdim = true : tensor<?x512xf32> -> tensor<?x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<?x1xf32> -> tensor<?x512xf32>
  %dx = fuser.sub %dy, %sb : tensor<?x512xf32>
  %dw = fuser.sum %p dims = [0] : tensor<?x512xf32> -> tensor<512xf32>
  %dwb = fuser.broadcast %dw dims = [1] : tensor<512xf32> -> tensor<?x512xf32>
  %z = fuser.mul %x, %dwb : tensor<?x512xf32>
  return %dx, %z : tensor<?x512xf32>, tensor<?x512xf32>
}
