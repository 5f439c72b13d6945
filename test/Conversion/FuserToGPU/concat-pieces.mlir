// The pointwise scheduler splits the dim a concat runs along into the
// pieces it picks from (ConcatPieces.cpp): a unit computes its elements in
// every piece, each piece takes its operand without a branch, and the
// pieces share their reads.
// RUN: fuser-opt %s -split-input-file --fuser-segment --fuser-emit-kernels --canonicalize --cse | FileCheck %s

// rotate_half: concat(-x[:, 32:], x[:, :32]) beside x. Two pieces of 32
// along the lane dim: the vector body loads x twice (its two halves, each
// once: the pieces share them) and stores twice, with no branch; the scalar
// loop does the same one lane at a time, over half as many elements.
// CHECK-LABEL: gpu.func @rotate_half_0(
// CHECK: scf.if
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK-COUNT-2: llvm.load {{.*}} -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK: arith.negf {{.*}} : vector<4xf32>
// CHECK-COUNT-2: llvm.store {{.*}} : vector<4xf32>
// CHECK-NOT: llvm.store
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512_i32
// CHECK-NOT: scf.if
// CHECK-COUNT-2: llvm.load {{.*}} -> f32
// CHECK-NOT: llvm.load
// CHECK: gpu.return
func.func @rotate_half(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %x1 = fuser.slice %x start = [0, 0] limit = [16, 32] step = [1, 1] : tensor<16x64xf32> -> tensor<16x32xf32>
  %x2 = fuser.slice %x start = [0, 32] limit = [16, 64] step = [1, 1] : tensor<16x64xf32> -> tensor<16x32xf32>
  %n2 = fuser.neg %x2 : tensor<16x32xf32>
  %r = fuser.concat %n2, %x1 dim = 1 : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x64xf32>
  %0 = fuser.add %x, %r : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// Two concats along one dim (GPT-NeoX's partial rotary: the first 32
// channels rotate, the last 32 pass): four pieces of 16, from the gcd of the
// boundaries at 16 and 32. Each of x's four quarters is loaded once.
// CHECK-LABEL: gpu.func @partial_rotary_0(
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: %[[Q0:.*]] = llvm.load {{.*}} -> vector<4xf32>
// CHECK: %[[Q1:.*]] = llvm.load {{.*}} -> vector<4xf32>
// CHECK: %[[N1:.*]] = arith.negf %[[Q1]]
// CHECK: %[[O0:.*]] = arith.addf %[[Q0]], %[[N1]]
// CHECK: llvm.store %[[O0]]
// CHECK: %[[O1:.*]] = arith.addf %[[Q1]], %[[Q0]]
// CHECK: llvm.store %[[O1]]
// CHECK: %[[Q2:.*]] = llvm.load {{.*}} -> vector<4xf32>
// CHECK: llvm.store %[[Q2]]
// CHECK: %[[Q3:.*]] = llvm.load {{.*}} -> vector<4xf32>
// CHECK: llvm.store %[[Q3]]
// CHECK-NOT: llvm.load {{.*}} -> vector
// CHECK: scf.for
func.func @partial_rotary(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %xr = fuser.slice %x start = [0, 0] limit = [16, 32] step = [1, 1] : tensor<16x64xf32> -> tensor<16x32xf32>
  %xp = fuser.slice %x start = [0, 32] limit = [16, 64] step = [1, 1] : tensor<16x64xf32> -> tensor<16x32xf32>
  %x1 = fuser.slice %xr start = [0, 0] limit = [16, 16] step = [1, 1] : tensor<16x32xf32> -> tensor<16x16xf32>
  %x2 = fuser.slice %xr start = [0, 16] limit = [16, 32] step = [1, 1] : tensor<16x32xf32> -> tensor<16x16xf32>
  %n2 = fuser.neg %x2 : tensor<16x16xf32>
  %r = fuser.concat %n2, %x1 dim = 1 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x32xf32>
  %o = fuser.add %xr, %r : tensor<16x32xf32>
  %0 = fuser.concat %o, %xp dim = 1 : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// A concat along an outer dim: two pieces of 2 rows, each a branch-free
// vector copy of its operand; 8 units of 4 lanes cover one piece.
// CHECK-LABEL: gpu.func @rows_0(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8_i32
// CHECK-NOT: scf.if
// CHECK: llvm.load %{{.*}} -> vector<4xf32>
// CHECK: llvm.load %{{.*}} -> vector<4xf32>
// CHECK-NOT: llvm.load {{.*}} -> vector
// CHECK: scf.for
func.func @rows(%a: tensor<2x16xf32>, %b: tensor<2x16xf32>) -> tensor<4x16xf32> {
  %0 = fuser.concat %a, %b dim = 0 : tensor<2x16xf32>, tensor<2x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// No split where the concat's sizes are known only at launch: the branch
// picks the operand.
// CHECK-LABEL: gpu.func @dynamic_0(
// CHECK: arith.cmpi slt
// CHECK: scf.if
func.func @dynamic(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = fuser.concat %a, %b dim = 1 : tensor<4x?xf32>, tensor<4x?xf32> -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Nor where the pieces would be narrower than a vector unit (a boundary at
// 2 of 16 f32: pieces of 2, units of 4), or more than 8 (17 pieces of 1).
// CHECK-LABEL: gpu.func @narrow_0(
// CHECK: scf.if
// CHECK-LABEL: gpu.func @many_0(
// CHECK: scf.if
func.func @narrow(%a: tensor<4x2xf32>, %b: tensor<4x14xf32>) -> tensor<4x16xf32> {
  %0 = fuser.concat %a, %b dim = 1 : tensor<4x2xf32>, tensor<4x14xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
func.func @many(%a: tensor<17x4xf32>, %b: tensor<16x4xf32>) -> tensor<33x4xf32> {
  %0 = fuser.concat %a, %b dim = 0 : tensor<17x4xf32>, tensor<16x4xf32> -> tensor<33x4xf32>
  return %0 : tensor<33x4xf32>
}

// -----

// GPT-J's interleaved pairs: x viewed as [.., 8, 2], concat(-odd, even)
// along the 2, viewed back. The concat's position is the channel mod 2, so
// the channel dim splits two ways interleaved (piece p at 2 d + p): each
// piece takes its operand without a branch, and the pair's two elements,
// reached through the reshape and directly, are loaded once each (the
// loads memoized by offset). Interleaved pieces move by 2 per unit: one
// lane.
// CHECK-LABEL: gpu.func @interleaved_0(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16_i32
// CHECK-NOT: scf.if
// CHECK: %[[E:.*]] = llvm.load {{.*}} -> f32
// CHECK: %[[O:.*]] = llvm.load {{.*}} -> f32
// CHECK: %[[N:.*]] = arith.negf %[[O]]
// CHECK: %[[R0:.*]] = arith.addf %[[E]], %[[N]]
// CHECK: llvm.store %[[R0]]
// CHECK: %[[R1:.*]] = arith.addf %[[O]], %[[E]]
// CHECK: llvm.store %[[R1]]
// CHECK-NOT: llvm.load
// CHECK: gpu.return
func.func @interleaved(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %p = fuser.reshape %x : tensor<2x16xf32> -> tensor<2x8x2xf32>
  %ev = fuser.slice %p start = [0, 0, 0] limit = [2, 8, 1] step = [1, 1, 1] : tensor<2x8x2xf32> -> tensor<2x8x1xf32>
  %od = fuser.slice %p start = [0, 0, 1] limit = [2, 8, 2] step = [1, 1, 1] : tensor<2x8x2xf32> -> tensor<2x8x1xf32>
  %no = fuser.neg %od : tensor<2x8x1xf32>
  %rp = fuser.concat %no, %ev dim = 2 : tensor<2x8x1xf32>, tensor<2x8x1xf32> -> tensor<2x8x2xf32>
  %r = fuser.reshape %rp : tensor<2x8x2xf32> -> tensor<2x16xf32>
  %0 = fuser.add %x, %r : tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// A permute of a concat: split into pieces, the operands are read across
// their contiguous dim, so the kernel takes the transpose shape; each tile
// covers one piece and stages both operands.
// CHECK-LABEL: gpu.func @permuted_0(
// CHECK-SAME: workgroup(%[[TA:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>, %[[TB:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>)
// CHECK: memref.store %{{.*}}, %[[TA]]
// CHECK: memref.store %{{.*}}, %[[TB]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[TA]]
// CHECK: llvm.store
// CHECK: memref.load %[[TB]]
// CHECK: llvm.store
func.func @permuted(%a: tensor<256x64xf32>, %b: tensor<256x64xf32>) -> tensor<128x256xf32> {
  %c = fuser.concat %a, %b dim = 1 : tensor<256x64xf32>, tensor<256x64xf32> -> tensor<256x128xf32>
  %0 = fuser.permute %c perm = [1, 0] : tensor<256x128xf32> -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// -----

// A permute of a concat of 8 f64 operands: staging every piece's operand
// would take 8 tiles of 32 x 33 f64 (67584 bytes, more than a block's 48
// KB), so the pieces keep the plain pointwise shape instead of becoming an
// error.
// CHECK-LABEL: gpu.func @wide_0(
// CHECK-NOT: workgroup
// CHECK-NOT: scf.if {{.*}} -> (f64)
// CHECK: gpu.return
func.func @wide(%a: tensor<64x8xf64>, %b: tensor<64x8xf64>, %c: tensor<64x8xf64>, %d: tensor<64x8xf64>, %e: tensor<64x8xf64>, %f: tensor<64x8xf64>, %g: tensor<64x8xf64>, %h: tensor<64x8xf64>) -> tensor<64x64xf64> {
  %0 = fuser.concat %a, %b, %c, %d, %e, %f, %g, %h dim = 1 : tensor<64x8xf64>, tensor<64x8xf64>, tensor<64x8xf64>, tensor<64x8xf64>, tensor<64x8xf64>, tensor<64x8xf64>, tensor<64x8xf64>, tensor<64x8xf64> -> tensor<64x64xf64>
  %1 = fuser.permute %0 perm = [1, 0] : tensor<64x64xf64> -> tensor<64x64xf64>
  return %1 : tensor<64x64xf64>
}
