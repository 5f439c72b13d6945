// Independent pointwise segments whose outputs differ in shape share one
// launch (HorizontalPointwise.cpp): blocks [0, B0) run the first segment's
// loop, [B0, B0 + B1) the second's; the plan passes each segment's vector
// flag and block count as the kernel's flags and launches their sum.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// Two outputs of different shapes, each from its own argument: one kernel,
// four flags (vector flag, blocks) per segment.
// CHECK-LABEL: gpu.func @side_by_side_0(
// CHECK-SAME: %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32)
// CHECK: %[[BID:.*]] = arith.index_castui %block_id_x
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[BID]], %arg5
// CHECK: scf.if %[[IN0]]
// CHECK: %[[END1:.*]] = arith.addi %arg5, %arg7
// CHECK: %[[BEFORE1:.*]] = arith.cmpi ult, %[[BID]], %[[END1]]
// CHECK: %[[AFTER0:.*]] = arith.cmpi uge, %[[BID]], %arg5
// CHECK: %[[IN1:.*]] = arith.andi %[[AFTER0]], %[[BEFORE1]]
// CHECK: scf.if %[[IN1]]
// CHECK: arith.subi %[[BID]], %arg5
// CHECK: gpu.return
// CHECK-NOT: gpu.func
// The plan: one launch of the two grids' sum, each segment's vector flag
// and block count its flags.
// CHECK-LABEL: func.func @side_by_side(
// CHECK: %[[B0:.*]] = arith.minui
// CHECK: %[[B1:.*]] = arith.minui
// CHECK: %[[TOTAL:.*]] = arith.addi %[[B0]], %[[B1]]
// CHECK: fuser.launch @side_by_side_kernels::@side_by_side_0 grid(%[[TOTAL]], %c1, %c1) {{.*}} args(%arg0, %arg1, %arg2, %arg3, %{{.*}}, %[[B0]], %{{.*}}, %[[B1]] :
// CHECK-NOT: fuser.launch
func.func @side_by_side(%x: tensor<64x100xf32>, %y: tensor<3x7xf32>) -> (tensor<64x100xf32>, tensor<3x7xf32>) {
  %0 = fuser.exp %x : tensor<64x100xf32>
  %1 = fuser.tanh %y : tensor<3x7xf32>
  return %0, %1 : tensor<64x100xf32>, tensor<3x7xf32>
}

// -----

// A segment that reads what a later kernel computes (the row sums) cannot
// join the first one: tanh(y) launches alone, then the sums, then what
// reads them.
// CHECK-LABEL: func.func @dependent(
// CHECK: fuser.launch @dependent_kernels::@dependent_0 {{.*}} args(%arg1,
// CHECK: fuser.launch @dependent_kernels::@dependent_1 {{.*}} args(%arg0,
// CHECK: fuser.launch @dependent_kernels::@dependent_2
// CHECK-NOT: fuser.launch
func.func @dependent(%x: tensor<64x100xf32>, %y: tensor<3x7xf32>) -> (tensor<3x7xf32>, tensor<3x64xf32>) {
  %0 = fuser.tanh %y : tensor<3x7xf32>
  %s = fuser.sum %x dims = [1] : tensor<64x100xf32> -> tensor<64xf32>
  %sb = fuser.broadcast %s dims = [1] : tensor<64xf32> -> tensor<3x64xf32>
  %2 = fuser.exp %sb : tensor<3x64xf32>
  return %0, %2 : tensor<3x7xf32>, tensor<3x64xf32>
}

// -----

// A segment in the transpose shape keeps its own kernel; a small static
// segment does not join a dynamic one (their index widths differ: the
// small one would become 64-bit with it): the transpose, the small
// segment, and the dynamic one's 32- and 64-bit variants.
// CHECK-LABEL: func.func @apart(
// CHECK: fuser.launch @apart_kernels::@apart_0 grid(%c32, %c1, %c1) block(%c32, %c8, %c1)
// CHECK: fuser.launch @apart_kernels::@apart_1 {{.*}} args(%arg1, %arg4,
// CHECK: fuser.launch @apart_kernels::@apart_2 {{.*}} args(%arg2, %arg5,
// CHECK: fuser.launch @apart_kernels::@apart_3 {{.*}} args(%arg2, %arg5,
// CHECK-NOT: fuser.launch
func.func @apart(%x: tensor<256x128xf32>, %y: tensor<3x7xf32>, %z: tensor<?xf32>) -> (tensor<128x256xf32>, tensor<3x7xf32>, tensor<?xf32>) {
  %t = fuser.permute %x perm = [1, 0] : tensor<256x128xf32> -> tensor<128x256xf32>
  %0 = fuser.exp %t : tensor<128x256xf32>
  %1 = fuser.tanh %y : tensor<3x7xf32>
  %2 = fuser.neg %z : tensor<?xf32>
  return %0, %1, %2 : tensor<128x256xf32>, tensor<3x7xf32>, tensor<?xf32>
}
