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

// -----

// Heavy segments stay apart: two chains of 33 ops would make a kernel of
// more than 64 ops (kHorizontalOps), which LLVM compiles slower than two
// kernels in parallel.
// CHECK-LABEL: func.func @heavy(
// CHECK: fuser.launch @heavy_kernels::@heavy_0 {{.*}} args(%arg0, %arg2,
// CHECK: fuser.launch @heavy_kernels::@heavy_1 {{.*}} args(%arg1, %arg3,
// CHECK-NOT: fuser.launch
func.func @heavy(%x: tensor<64x100xf32>, %y: tensor<3x7xf32>) -> (tensor<64x100xf32>, tensor<3x7xf32>) {
  %x0 = fuser.exp %x : tensor<64x100xf32>
  %x1 = fuser.tanh %x0 : tensor<64x100xf32>
  %x2 = fuser.sin %x1 : tensor<64x100xf32>
  %x3 = fuser.exp %x2 : tensor<64x100xf32>
  %x4 = fuser.tanh %x3 : tensor<64x100xf32>
  %x5 = fuser.sin %x4 : tensor<64x100xf32>
  %x6 = fuser.exp %x5 : tensor<64x100xf32>
  %x7 = fuser.tanh %x6 : tensor<64x100xf32>
  %x8 = fuser.sin %x7 : tensor<64x100xf32>
  %x9 = fuser.exp %x8 : tensor<64x100xf32>
  %x10 = fuser.tanh %x9 : tensor<64x100xf32>
  %x11 = fuser.sin %x10 : tensor<64x100xf32>
  %x12 = fuser.exp %x11 : tensor<64x100xf32>
  %x13 = fuser.tanh %x12 : tensor<64x100xf32>
  %x14 = fuser.sin %x13 : tensor<64x100xf32>
  %x15 = fuser.exp %x14 : tensor<64x100xf32>
  %x16 = fuser.tanh %x15 : tensor<64x100xf32>
  %x17 = fuser.sin %x16 : tensor<64x100xf32>
  %x18 = fuser.exp %x17 : tensor<64x100xf32>
  %x19 = fuser.tanh %x18 : tensor<64x100xf32>
  %x20 = fuser.sin %x19 : tensor<64x100xf32>
  %x21 = fuser.exp %x20 : tensor<64x100xf32>
  %x22 = fuser.tanh %x21 : tensor<64x100xf32>
  %x23 = fuser.sin %x22 : tensor<64x100xf32>
  %x24 = fuser.exp %x23 : tensor<64x100xf32>
  %x25 = fuser.tanh %x24 : tensor<64x100xf32>
  %x26 = fuser.sin %x25 : tensor<64x100xf32>
  %x27 = fuser.exp %x26 : tensor<64x100xf32>
  %x28 = fuser.tanh %x27 : tensor<64x100xf32>
  %x29 = fuser.sin %x28 : tensor<64x100xf32>
  %x30 = fuser.exp %x29 : tensor<64x100xf32>
  %x31 = fuser.tanh %x30 : tensor<64x100xf32>
  %x32 = fuser.sin %x31 : tensor<64x100xf32>
  %y0 = fuser.exp %y : tensor<3x7xf32>
  %y1 = fuser.tanh %y0 : tensor<3x7xf32>
  %y2 = fuser.sin %y1 : tensor<3x7xf32>
  %y3 = fuser.exp %y2 : tensor<3x7xf32>
  %y4 = fuser.tanh %y3 : tensor<3x7xf32>
  %y5 = fuser.sin %y4 : tensor<3x7xf32>
  %y6 = fuser.exp %y5 : tensor<3x7xf32>
  %y7 = fuser.tanh %y6 : tensor<3x7xf32>
  %y8 = fuser.sin %y7 : tensor<3x7xf32>
  %y9 = fuser.exp %y8 : tensor<3x7xf32>
  %y10 = fuser.tanh %y9 : tensor<3x7xf32>
  %y11 = fuser.sin %y10 : tensor<3x7xf32>
  %y12 = fuser.exp %y11 : tensor<3x7xf32>
  %y13 = fuser.tanh %y12 : tensor<3x7xf32>
  %y14 = fuser.sin %y13 : tensor<3x7xf32>
  %y15 = fuser.exp %y14 : tensor<3x7xf32>
  %y16 = fuser.tanh %y15 : tensor<3x7xf32>
  %y17 = fuser.sin %y16 : tensor<3x7xf32>
  %y18 = fuser.exp %y17 : tensor<3x7xf32>
  %y19 = fuser.tanh %y18 : tensor<3x7xf32>
  %y20 = fuser.sin %y19 : tensor<3x7xf32>
  %y21 = fuser.exp %y20 : tensor<3x7xf32>
  %y22 = fuser.tanh %y21 : tensor<3x7xf32>
  %y23 = fuser.sin %y22 : tensor<3x7xf32>
  %y24 = fuser.exp %y23 : tensor<3x7xf32>
  %y25 = fuser.tanh %y24 : tensor<3x7xf32>
  %y26 = fuser.sin %y25 : tensor<3x7xf32>
  %y27 = fuser.exp %y26 : tensor<3x7xf32>
  %y28 = fuser.tanh %y27 : tensor<3x7xf32>
  %y29 = fuser.sin %y28 : tensor<3x7xf32>
  %y30 = fuser.exp %y29 : tensor<3x7xf32>
  %y31 = fuser.tanh %y30 : tensor<3x7xf32>
  %y32 = fuser.sin %y31 : tensor<3x7xf32>
  return %x32, %y32 : tensor<64x100xf32>, tensor<3x7xf32>
}
