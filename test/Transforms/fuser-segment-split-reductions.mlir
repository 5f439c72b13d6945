// RUN: fuser-opt %s -split-input-file --fuser-segment | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-segment=dump 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP

// A reduction over more dims than a row reduction of the same shape beside
// it is two steps (lib/Transforms/SplitReductions.cpp): the row's dims in
// the row's kernel, which reads x once, then the rest over the small
// reduced tensor. (Whole, the sum over [0, 1] read x a second time.)
// CHECK-LABEL: func.func @beside_rows
// CHECK-SAME: fuser.schedulers = ["normalization", "reduction"]
// CHECK: %[[SQ:.*]] = fuser.mul %arg0, %arg0 {fuser.segment = 0 : i64}
// CHECK: %[[ROWS:.*]] = fuser.sum %[[SQ]] dims = [1] keepdim = true {fuser.segment = 0 : i64} : tensor<64x256xf32> -> tensor<64x1xf32>
// CHECK: %[[T:.*]] = fuser.sum %[[ROWS]] dims = [0, 1] {fuser.segment = 1 : i64} : tensor<64x1xf32> -> tensor<f32>
// CHECK: return %{{.*}}, %[[T]]
// DUMP: fusion @beside_rows: 2 segments
// DUMP-NEXT: segment 0: normalization, 5 ops (mean broadcast sub mul sum)
// DUMP-NEXT: segment 1: reduction, 1 ops (sum)
// DUMP: 1 reduction over more dims than a row reduction beside it split in two: the row's dims in the row's kernel, then the rest, if a dim of it holds more than one element (no more kernels, fewer bytes)
func.func @beside_rows(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<f32>) {
  %m = fuser.mean %x dims = [1] keepdim = true : tensor<64x256xf32> -> tensor<64x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1] : tensor<64x1xf32> -> tensor<64x256xf32>
  %y = fuser.sub %x, %mb : tensor<64x256xf32>
  %sq = fuser.mul %x, %x : tensor<64x256xf32>
  %t = fuser.sum %sq dims = [0, 1] : tensor<64x256xf32> -> tensor<f32>
  return %y, %t : tensor<64x256xf32>, tensor<f32>
}

// -----

// instance_norm's layout: rows of H x W per (n, c), and sums over N, H and
// W per channel. A sum or mean of bf16 adds in f32 through both steps and
// rounds once at the end; a max needs no widening. keepdim is the
// original's (the dims are written in order).
// CHECK-LABEL: func.func @narrow
// CHECK-SAME: fuser.schedulers = ["normalization", "reduction"]
// CHECK: %[[W:.*]] = fuser.cast %arg0 {fuser.segment = 0 : i64} : tensor<8x32x16x16xbf16> to tensor<8x32x16x16xf32>
// CHECK: %[[S1:.*]] = fuser.sum %[[W]] dims = [2, 3] keepdim = true {fuser.segment = 0 : i64} : tensor<8x32x16x16xf32> -> tensor<8x32x1x1xf32>
// CHECK: %[[S2:.*]] = fuser.sum %[[S1]] dims = [0, 2, 3] {fuser.segment = 1 : i64} : tensor<8x32x1x1xf32> -> tensor<32xf32>
// CHECK: %[[S:.*]] = fuser.cast %[[S2]] {fuser.segment = 1 : i64} : tensor<32xf32> to tensor<32xbf16>
// CHECK: %[[M1:.*]] = fuser.mean %{{.*}} dims = [2, 3] keepdim = true {fuser.segment = 0 : i64} : tensor<8x32x16x16xf32> -> tensor<8x32x1x1xf32>
// CHECK: %[[M2:.*]] = fuser.mean %[[M1]] dims = [0, 2, 3] keepdim = true {fuser.segment = 1 : i64} : tensor<8x32x1x1xf32> -> tensor<1x32x1x1xf32>
// CHECK: %[[M:.*]] = fuser.cast %[[M2]] {fuser.segment = 1 : i64} : tensor<1x32x1x1xf32> to tensor<1x32x1x1xbf16>
// CHECK: %[[X1:.*]] = fuser.max %arg0 dims = [2, 3] keepdim = true {fuser.segment = 0 : i64} : tensor<8x32x16x16xbf16> -> tensor<8x32x1x1xbf16>
// CHECK: %[[X:.*]] = fuser.max %[[X1]] dims = [0, 2, 3] {fuser.segment = 1 : i64} : tensor<8x32x1x1xbf16> -> tensor<32xbf16>
// CHECK: return %{{.*}}, %[[S]], %[[M]], %[[X]]
// DUMP: fusion @narrow: 2 segments
// DUMP: 3 reductions over more dims than a row reduction beside it split in two
func.func @narrow(%x: tensor<8x32x16x16xbf16>) -> (tensor<8x32x16x16xbf16>, tensor<32xbf16>, tensor<1x32x1x1xbf16>, tensor<32xbf16>) {
  %m = fuser.mean %x dims = [2, 3] keepdim = true : tensor<8x32x16x16xbf16> -> tensor<8x32x1x1xbf16>
  %mb = fuser.broadcast %m dims = [0, 1, 2, 3] : tensor<8x32x1x1xbf16> -> tensor<8x32x16x16xbf16>
  %y = fuser.sub %x, %mb : tensor<8x32x16x16xbf16>
  %s = fuser.sum %x dims = [0, 2, 3] : tensor<8x32x16x16xbf16> -> tensor<32xbf16>
  %a = fuser.mean %x dims = [0, 3, 2] keepdim = true : tensor<8x32x16x16xbf16> -> tensor<1x32x1x1xbf16>
  %b = fuser.max %x dims = [0, 2, 3] : tensor<8x32x16x16xbf16> -> tensor<32xbf16>
  return %y, %s, %a, %b : tensor<8x32x16x16xbf16>, tensor<32xbf16>, tensor<1x32x1x1xbf16>, tensor<32xbf16>
}

// -----

// Dynamic sizes: the two reductions read tensors of provably the same shape.
// CHECK-LABEL: func.func @same_dynamic_shape
// CHECK-SAME: fuser.schedulers = ["reduction", "reduction"]
// CHECK: fuser.sum %{{.*}} dims = [1] keepdim = true {fuser.segment = 0 : i64} : tensor<?x?xf32> -> tensor<?x1xf32>
// CHECK: fuser.sum %{{.*}} dims = [0, 1] {fuser.segment = 1 : i64} : tensor<?x1xf32> -> tensor<f32>
func.func @same_dynamic_shape(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %r = fuser.sum %x dims = [1] : tensor<?x?xf32> -> tensor<?xf32>
  %e = fuser.exp %x : tensor<?x?xf32>
  %t = fuser.sum %e dims = [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %r, %t : tensor<?xf32>, tensor<f32>
}

// -----

// Kept whole: tensors whose sizes may differ at launch.
// CHECK-LABEL: func.func @other_shape
// CHECK: fuser.sum %arg1 dims = [0, 1] {fuser.segment = {{.}} : i64} : tensor<?x?xf32> -> tensor<f32>
// DUMP: fusion @other_shape: 2 segments
// DUMP-NOT: split in two
func.func @other_shape(%x: tensor<?x?xf32>, %z: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %r = fuser.sum %x dims = [1] : tensor<?x?xf32> -> tensor<?xf32>
  %t = fuser.sum %z dims = [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %r, %t : tensor<?xf32>, tensor<f32>
}

// -----

// Kept whole: the summed value depends on a column mean, so its row sums
// could not join the row kernel.
// CHECK-LABEL: func.func @other_reduction_upstream
// CHECK: fuser.sum %{{.*}} dims = [0, 1] {fuser.segment = 1 : i64} : tensor<64x256xf32> -> tensor<f32>
// DUMP: fusion @other_reduction_upstream: 2 segments
// DUMP-NOT: split in two
func.func @other_reduction_upstream(%x: tensor<64x256xf32>) -> (tensor<64xf32>, tensor<f32>) {
  %r = fuser.sum %x dims = [1] : tensor<64x256xf32> -> tensor<64xf32>
  %c = fuser.mean %x dims = [0] keepdim = true : tensor<64x256xf32> -> tensor<1x256xf32>
  %cb = fuser.broadcast %c dims = [0, 1] : tensor<1x256xf32> -> tensor<64x256xf32>
  %d = fuser.sub %x, %cb : tensor<64x256xf32>
  %t = fuser.sum %d dims = [0, 1] : tensor<64x256xf32> -> tensor<f32>
  return %r, %t : tensor<64xf32>, tensor<f32>
}

// -----

// Kept whole: split, it would be three kernels. A mean over 1024 rows of
// the middle dim is a reduction kernel, not a normalization
// (kOuterNormalizationMaxDepth), so `y` is computed in a second kernel,
// where the whole sum joins it; split, its second step would be a third.
// CHECK-LABEL: func.func @more_kernels
// CHECK-SAME: fuser.schedulers = ["reduction", "reduction"]
// CHECK: fuser.sum %arg0 dims = [0, 1] {fuser.segment = 1 : i64} : tensor<4x1024x16xf32> -> tensor<16xf32>
// DUMP: fusion @more_kernels: 2 segments
// DUMP-NOT: split in two
func.func @more_kernels(%x: tensor<4x1024x16xf32>) -> (tensor<4x1024x16xf32>, tensor<16xf32>) {
  %m = fuser.mean %x dims = [1] keepdim = true : tensor<4x1024x16xf32> -> tensor<4x1x16xf32>
  %mb = fuser.broadcast %m dims = [0, 1, 2] : tensor<4x1x16xf32> -> tensor<4x1024x16xf32>
  %y = fuser.sub %x, %mb : tensor<4x1024x16xf32>
  %t = fuser.sum %x dims = [0, 1] : tensor<4x1024x16xf32> -> tensor<16xf32>
  return %y, %t : tensor<4x1024x16xf32>, tensor<16xf32>
}

// -----

// Chained: `t` splits beside `m`; `u` (over [0, 1] of `t`, beside `w` over
// [1]) is then computed from `t`'s second step, a reduction of another
// shape, so it stays whole. (A split that erased `t` once left `u`'s
// recorded input dangling: each split now re-analyzes the fusion.)
// CHECK-LABEL: func.func @chained
// CHECK-SAME: fuser.schedulers = ["reduction", "reduction", "reduction", "reduction"]
// CHECK: fuser.sum %arg0 dims = [3] {fuser.segment = 0 : i64}
// CHECK: %[[T1:.*]] = fuser.sum %arg0 dims = [3] keepdim = true {fuser.segment = 0 : i64} : tensor<8x32x16x16xf32> -> tensor<8x32x16x1xf32>
// CHECK: %[[T:.*]] = fuser.sum %[[T1]] dims = [2, 3] {fuser.segment = 1 : i64} : tensor<8x32x16x1xf32> -> tensor<8x32xf32>
// CHECK: fuser.sum %[[T]] dims = [0, 1] {fuser.segment = {{.}} : i64} : tensor<8x32xf32> -> tensor<f32>
// DUMP: fusion @chained: 4 segments
// DUMP: 1 reduction over more dims than a row reduction beside it split in two
func.func @chained(%x: tensor<8x32x16x16xf32>) -> (tensor<8x32x16xf32>, tensor<8xf32>, tensor<f32>) {
  %m = fuser.sum %x dims = [3] : tensor<8x32x16x16xf32> -> tensor<8x32x16xf32>
  %t = fuser.sum %x dims = [2, 3] : tensor<8x32x16x16xf32> -> tensor<8x32xf32>
  %w = fuser.max %t dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %u = fuser.sum %t dims = [0, 1] : tensor<8x32xf32> -> tensor<f32>
  return %m, %w, %u : tensor<8x32x16xf32>, tensor<8xf32>, tensor<f32>
}

// -----

// A batch of one: the dims left after the row's are all of size 1, so the
// reduction is the row's dims' in the row's kernel, reshaped (index
// arithmetic, here a view of the result): instance_norm's backward is one
// kernel. (Before: the sum over [0, 2, 3] was not the rows' [2, 3], and a
// kernel of its own.)
// CHECK-LABEL: func.func @batch_of_one
// CHECK-SAME: fuser.schedulers = ["normalization"]
// CHECK: %[[S:.*]] = fuser.sum %{{.*}} dims = [2, 3] keepdim = true {fuser.segment = 0 : i64} : tensor<1x32x16x16xf32> -> tensor<1x32x1x1xf32>
// CHECK: %[[R:.*]] = fuser.reshape %[[S]] {fuser.result_view} : tensor<1x32x1x1xf32> -> tensor<32xf32>
// CHECK: return %{{.*}}, %[[R]]
// DUMP: fusion @batch_of_one: 1 segment
// DUMP: 1 reduction over more dims than a row reduction beside it split in two
func.func @batch_of_one(%x: tensor<1x32x16x16xf32>) -> (tensor<1x32x16x16xf32>, tensor<32xf32>) {
  %m = fuser.mean %x dims = [2, 3] keepdim = true : tensor<1x32x16x16xf32> -> tensor<1x32x1x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1, 2, 3] : tensor<1x32x1x1xf32> -> tensor<1x32x16x16xf32>
  %y = fuser.sub %x, %mb : tensor<1x32x16x16xf32>
  %s = fuser.sum %x dims = [0, 2, 3] : tensor<1x32x16x16xf32> -> tensor<32xf32>
  return %y, %s : tensor<1x32x16x16xf32>, tensor<32xf32>
}

// -----

// group_norm's layout: rows of (C / G) x H x W per (n, g) over a reshape
// of x, and sums over N, H and W per channel. Each channel's H x W run is a
// part of its group's row (GroupInfo::rowSegments): the first step sums
// the runs in the row kernel, 4 parts a row, and a small kernel adds them
// over N. (Before: a kernel that read x a second time.)
// CHECK-LABEL: func.func @group_parts
// CHECK-SAME: fuser.schedulers = ["normalization", "reduction"]
// CHECK: %[[Z:.*]] = fuser.reshape %arg0 {fuser.segment = 0 : i64} : tensor<8x32x4x4xf32> -> tensor<8x8x64xf32>
// CHECK: %[[S1:.*]] = fuser.sum %arg0 dims = [2, 3] keepdim = true {fuser.segment = 0 : i64} : tensor<8x32x4x4xf32> -> tensor<8x32x1x1xf32>
// CHECK: %[[S2:.*]] = fuser.sum %[[S1]] dims = [0, 2, 3] {fuser.segment = 1 : i64} : tensor<8x32x1x1xf32> -> tensor<32xf32>
// CHECK: return %{{.*}}, %[[S2]]
// DUMP: fusion @group_parts: 2 segments
// DUMP-NEXT: segment 0: normalization, 5 ops (reshape mean broadcast sub sum)
// DUMP-NEXT: segment 1: reduction, 1 ops (sum)
// DUMP: 1 reduction over more dims than a row reduction beside it split in two
func.func @group_parts(%x: tensor<8x32x4x4xf32>) -> (tensor<8x32x4x4xf32>, tensor<32xf32>) {
  %z = fuser.reshape %x : tensor<8x32x4x4xf32> -> tensor<8x8x64xf32>
  %m = fuser.mean %z dims = [2] keepdim = true : tensor<8x8x64xf32> -> tensor<8x8x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1, 2] : tensor<8x8x1xf32> -> tensor<8x8x64xf32>
  %c = fuser.sub %z, %mb : tensor<8x8x64xf32>
  %y = fuser.reshape %c : tensor<8x8x64xf32> -> tensor<8x32x4x4xf32>
  %s = fuser.sum %x dims = [0, 2, 3] : tensor<8x32x4x4xf32> -> tensor<32xf32>
  return %y, %s : tensor<8x32x4x4xf32>, tensor<32xf32>
}

// -----

// More than kMaxRowSegments (8) channels a group: each part is an
// accumulator and a block reduction, so the sum stays whole, in a kernel of
// its own.
// CHECK-LABEL: func.func @too_many_parts
// CHECK-SAME: fuser.schedulers = ["normalization", "reduction"]
// CHECK: fuser.sum %arg0 dims = [0, 2, 3] {fuser.segment = 1 : i64} : tensor<2x18x4x4xf32> -> tensor<18xf32>
// DUMP: fusion @too_many_parts: 2 segments
// DUMP-NEXT: segment 0: normalization, 4 ops (reshape mean broadcast sub)
// DUMP-NEXT: segment 1: reduction, 1 ops (sum)
// DUMP-NOT: split in two
func.func @too_many_parts(%x: tensor<2x18x4x4xf32>) -> (tensor<2x18x4x4xf32>, tensor<18xf32>) {
  %z = fuser.reshape %x : tensor<2x18x4x4xf32> -> tensor<2x2x144xf32>
  %m = fuser.mean %z dims = [2] keepdim = true : tensor<2x2x144xf32> -> tensor<2x2x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1, 2] : tensor<2x2x1xf32> -> tensor<2x2x144xf32>
  %c = fuser.sub %z, %mb : tensor<2x2x144xf32>
  %y = fuser.reshape %c : tensor<2x2x144xf32> -> tensor<2x18x4x4xf32>
  %s = fuser.sum %x dims = [0, 2, 3] : tensor<2x18x4x4xf32> -> tensor<18xf32>
  return %y, %s : tensor<2x18x4x4xf32>, tensor<18xf32>
}

// -----

// A part of the rows read in the rows' kernel would need another part's
// value: the parts' sums and what reads them form a kernel of their own
// (a normalization over the parts).
// DUMP: fusion @parts_read: 2 segments
// DUMP-NEXT: segment 0: reduction, 2 ops (reshape mean)
// DUMP-NEXT: segment 1: normalization, 7 ops (broadcast reshape sub reshape sum broadcast sub)
// DUMP-NEXT: boundary 0 -> 1: a reduction over parts of rows is read in the rows' kernel: that needs another kernel
func.func @parts_read(%x: tensor<8x32x4x4xf32>) -> (tensor<8x32x4x4xf32>, tensor<8x32x4x4xf32>) {
  %z = fuser.reshape %x : tensor<8x32x4x4xf32> -> tensor<8x8x64xf32>
  %m = fuser.mean %z dims = [2] keepdim = true : tensor<8x8x64xf32> -> tensor<8x8x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1, 2] : tensor<8x8x1xf32> -> tensor<8x8x64xf32>
  %c = fuser.sub %z, %mb : tensor<8x8x64xf32>
  %y = fuser.reshape %c : tensor<8x8x64xf32> -> tensor<8x32x4x4xf32>
  %s = fuser.sum %x dims = [2, 3] keepdim = true : tensor<8x32x4x4xf32> -> tensor<8x32x1x1xf32>
  %sb = fuser.broadcast %s dims = [0, 1, 2, 3] : tensor<8x32x1x1xf32> -> tensor<8x32x4x4xf32>
  %v = fuser.sub %y, %sb : tensor<8x32x4x4xf32>
  return %y, %v : tensor<8x32x4x4xf32>, tensor<8x32x4x4xf32>
}

// -----

// Sizes known only at launch: the row [?, 3, 8 * ? * ?] and the parts
// [?, 24, ?, ?] match as a constant times the same product of '?' dims
// (compared as AffineExprs, `s0 * (s1 * 8)` was not `s0 * 8 * s1`).
// DUMP: fusion @group_parts_dynamic: 2 segments
// DUMP-NEXT: segment 0: normalization, 5 ops (reshape mean broadcast sub sum)
// DUMP-NEXT: segment 1: reduction, 1 ops (sum)
func.func @group_parts_dynamic(%x: tensor<?x24x?x?xf32>) -> (tensor<?x24x?x?xf32>, tensor<24xf32>) {
  %z = fuser.reshape %x : tensor<?x24x?x?xf32> -> tensor<?x3x?xf32>
  %m = fuser.mean %z dims = [2] keepdim = true : tensor<?x3x?xf32> -> tensor<?x3x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1, 2] : tensor<?x3x1xf32> -> tensor<?x3x?xf32>
  %c = fuser.sub %z, %mb : tensor<?x3x?xf32>
  %y = fuser.reshape %c : tensor<?x3x?xf32> -> tensor<?x24x?x?xf32>
  %s = fuser.sum %x dims = [0, 2, 3] : tensor<?x24x?x?xf32> -> tensor<24xf32>
  return %y, %s : tensor<?x24x?x?xf32>, tensor<24xf32>
}

// -----

// f64 parts take 4 KiB of block-reduction scratch each: 16 of them (dw and
// db at 8 channels a group) would pass the 32 KiB kMaxRowSegmentScratchBytes
// (69632 bytes in all, which ptxas refused), so the sum stays whole.
// DUMP: fusion @parts_f64: 2 segments
// DUMP-NEXT: segment 0: normalization, 4 ops (reshape mean broadcast sub)
// DUMP-NEXT: segment 1: reduction, 2 ops (sum sum)
// DUMP-NOT: split in two
func.func @parts_f64(%x: tensor<2x64x4x4xf64>, %d: tensor<2x64x4x4xf64>) -> (tensor<2x64x4x4xf64>, tensor<64xf64>, tensor<64xf64>) {
  %z = fuser.reshape %x : tensor<2x64x4x4xf64> -> tensor<2x8x128xf64>
  %m = fuser.mean %z dims = [2] keepdim = true : tensor<2x8x128xf64> -> tensor<2x8x1xf64>
  %mb = fuser.broadcast %m dims = [0, 1, 2] : tensor<2x8x1xf64> -> tensor<2x8x128xf64>
  %c = fuser.sub %z, %mb : tensor<2x8x128xf64>
  %y = fuser.reshape %c : tensor<2x8x128xf64> -> tensor<2x64x4x4xf64>
  %s = fuser.sum %x dims = [0, 2, 3] : tensor<2x64x4x4xf64> -> tensor<64xf64>
  %t = fuser.sum %d dims = [0, 2, 3] : tensor<2x64x4x4xf64> -> tensor<64xf64>
  return %y, %s, %t : tensor<2x64x4x4xf64>, tensor<64xf64>, tensor<64xf64>
}
