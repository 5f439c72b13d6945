// RUN: fuser-opt %s -split-input-file --fuser-segment | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-segment=dump 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP

// A fusion of pointwise-class ops is one segment.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: fuser.schedulers = ["pointwise"]
// CHECK: fuser.broadcast {{.*}} {fuser.segment = 0 : i64}
// CHECK: fuser.add {{.*}} {fuser.segment = 0 : i64}
// CHECK: fuser.exp {{.*}} {fuser.segment = 0 : i64}
// DUMP: fusion @pointwise: 1 segment
// DUMP-NEXT: segment 0: pointwise, 3 ops (broadcast add exp)
func.func @pointwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = fuser.broadcast %b dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %1 = fuser.add %x, %0 : tensor<4x8xf32>
  %2 = fuser.exp %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// softmax written out: one normalization segment (both reductions over the
// same rows, the row kept on chip between them).
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: fuser.schedulers = ["normalization"]
// DUMP: fusion @softmax: 1 segment
// DUMP-NEXT: segment 0: normalization, 7 ops (max broadcast sub exp sum broadcast div)
func.func @softmax(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = fuser.max %x dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %mb = fuser.broadcast %m dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %s = fuser.sub %x, %mb : tensor<8x128xf32>
  %e = fuser.exp %s : tensor<8x128xf32>
  %z = fuser.sum %e dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %zb = fuser.broadcast %z dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %y = fuser.div %e, %zb : tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// -----

// Sibling reductions of one input over the same dims share a kernel.
// CHECK-LABEL: func.func @siblings
// CHECK-SAME: fuser.schedulers = ["reduction"]
// DUMP: fusion @siblings: 1 segment
// DUMP-NEXT: segment 0: reduction, 2 ops (sum max)
func.func @siblings(%x: tensor<8x128xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = fuser.sum %x dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %1 = fuser.max %x dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// Row maxima, then column sums of the rows divided by them: one inner-outer
// kernel (each block divides the rows it holds by their maxima and keeps
// per-block column sums) and a combine.
// CHECK-LABEL: func.func @two_domains
// CHECK-SAME: fuser.schedulers = ["inner-outer"]
// CHECK: fuser.max {{.*}} {fuser.segment = 0 : i64}
// CHECK: fuser.div {{.*}} {fuser.segment = 0 : i64}
// CHECK: fuser.sum {{.*}} {fuser.segment = 0 : i64}
// DUMP: fusion @two_domains: 1 segment
// DUMP-NEXT: segment 0: inner-outer, 4 ops (max broadcast div sum)
func.func @two_domains(%x: tensor<16x512xf32>) -> tensor<512xf32> {
  %m = fuser.max %x dims = [1] : tensor<16x512xf32> -> tensor<16xf32>
  %b = fuser.broadcast %m dims = [0] : tensor<16xf32> -> tensor<16x512xf32>
  %y = fuser.div %x, %b : tensor<16x512xf32>
  %s = fuser.sum %y dims = [0] : tensor<16x512xf32> -> tensor<512xf32>
  return %s : tensor<512xf32>
}

// -----

// Column sums, then row maxima of the rows divided by them: the rows need
// every row's contribution to the column sums first (a grid-wide
// dependency), so two kernels.
// CHECK-LABEL: func.func @columns_then_rows
// CHECK-SAME: fuser.schedulers = ["reduction", "reduction"]
// CHECK: fuser.sum {{.*}} {fuser.segment = 0 : i64}
// CHECK: fuser.div {{.*}} {fuser.segment = 1 : i64}
// CHECK: fuser.max {{.*}} {fuser.segment = 1 : i64}
// DUMP: fusion @columns_then_rows: 2 segments
// DUMP: boundary 0 -> 1: a value computed from a reduction across rows feeds the rows' computation or is moved: that needs another kernel
func.func @columns_then_rows(%x: tensor<16x512xf32>) -> tensor<16xf32> {
  %s = fuser.sum %x dims = [0] : tensor<16x512xf32> -> tensor<512xf32>
  %b = fuser.broadcast %s dims = [1] : tensor<512xf32> -> tensor<16x512xf32>
  %y = fuser.div %x, %b : tensor<16x512xf32>
  %m = fuser.max %y dims = [1] : tensor<16x512xf32> -> tensor<16xf32>
  return %m : tensor<16xf32>
}

// -----

// Rows of more than kInnerOuterMaxRow elements keep the column reduction
// in a kernel of its own.
// CHECK-LABEL: func.func @long_rows
// CHECK-SAME: fuser.schedulers = ["reduction", "reduction"]
// DUMP: fusion @long_rows: 2 segments
// DUMP: boundary 0 -> 1: rows of more than 16384 elements do not stay on chip beside the column reductions' accumulators: those need a kernel of their own
func.func @long_rows(%x: tensor<16x16400xf32>) -> tensor<16400xf32> {
  %m = fuser.max %x dims = [1] : tensor<16x16400xf32> -> tensor<16xf32>
  %b = fuser.broadcast %m dims = [0] : tensor<16xf32> -> tensor<16x16400xf32>
  %y = fuser.div %x, %b : tensor<16x16400xf32>
  %s = fuser.sum %y dims = [0] : tensor<16x16400xf32> -> tensor<16400xf32>
  return %s : tensor<16400xf32>
}

// -----

// Normalizing along the leading dim over at most 256 elements (static):
// one kernel, each block holding whole columns on chip.
// CHECK-LABEL: func.func @column_normalize
// CHECK-SAME: fuser.schedulers = ["normalization"]
// DUMP: fusion @column_normalize: 1 segment
// DUMP-NEXT: segment 0: normalization, 3 ops (sum broadcast div)
func.func @column_normalize(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %s = fuser.sum %x dims = [0] : tensor<64x32xf32> -> tensor<32xf32>
  %b = fuser.broadcast %s dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %y = fuser.div %x, %b : tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}

// -----

// Longer columns would need every block of a column to wait for the others
// (a grid-wide barrier): an outer reduction, then a pointwise kernel that
// reads the sums; the dump says why.
// CHECK-LABEL: func.func @column_normalize_long
// CHECK-SAME: fuser.schedulers = ["reduction", "pointwise"]
// DUMP: fusion @column_normalize_long: 2 segments
// DUMP: boundary 0 -> 1: normalizing along non-trailing dims over more than 256 elements needs a reduction kernel and a pointwise kernel (every block of a column would have to wait for the others: a grid-wide barrier)
func.func @column_normalize_long(%x: tensor<257x32xf32>) -> tensor<257x32xf32> {
  %s = fuser.sum %x dims = [0] : tensor<257x32xf32> -> tensor<32xf32>
  %b = fuser.broadcast %s dims = [1] : tensor<32xf32> -> tensor<257x32xf32>
  %y = fuser.div %x, %b : tensor<257x32xf32>
  return %y : tensor<257x32xf32>
}

// -----

// The same with columns whose length is known only at launch.
// CHECK-LABEL: func.func @column_normalize_dynamic
// CHECK-SAME: fuser.schedulers = ["reduction", "pointwise"]
// DUMP: fusion @column_normalize_dynamic: 2 segments
// DUMP: boundary 0 -> 1: normalizing along non-trailing dims over an extent known only at launch needs a reduction kernel and a pointwise kernel
func.func @column_normalize_dynamic(%x: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %s = fuser.sum %x dims = [0] : tensor<?x32xf32> -> tensor<32xf32>
  %b = fuser.broadcast %s dims = [1] : tensor<32xf32> -> tensor<?x32xf32>
  %y = fuser.div %x, %b : tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// A constant used by two segments is copied into each.
// CHECK-LABEL: func.func @shared_constant
// CHECK-DAG: fuser.constant 2.000000e+00 {fuser.segment = 0 : i64} : tensor<f32>
// CHECK-DAG: fuser.constant 2.000000e+00 {fuser.segment = 1 : i64} : tensor<f32>
func.func @shared_constant(%x: tensor<64x32xf32>, %w: tensor<16x8xf32>) -> (tensor<32xf32>, tensor<16xf32>) {
  %c = fuser.constant 2.0 : tensor<f32>
  %y = fuser.mul %x, %c : tensor<64x32xf32>, tensor<f32>
  %s = fuser.sum %y dims = [0] : tensor<64x32xf32> -> tensor<32xf32>
  %m = fuser.max %w dims = [1] : tensor<16x8xf32> -> tensor<16xf32>
  %z = fuser.mul %m, %c : tensor<16xf32>, tensor<f32>
  return %s, %z : tensor<32xf32>, tensor<16xf32>
}

// -----

// A square permute of a normalized value reads other rows' values: it
// cannot share the normalization's kernel, even though every shape is 5x5
// (found by test/oracle/random_fusions.py, seed 1480: wrong values). The
// reduction gets its own kernel; the rest is pointwise over its result.
// CHECK-LABEL: func.func @normalize_then_permute
// CHECK-SAME: fuser.schedulers = ["reduction", "pointwise"]
// CHECK: fuser.max {{.*}} {fuser.segment = 0 : i64}
// CHECK: fuser.mul {{.*}} {fuser.segment = 1 : i64}
// CHECK: fuser.permute {{.*}} {fuser.segment = 1 : i64}
// DUMP: fusion @normalize_then_permute: 2 segments
func.func @normalize_then_permute(%x: tensor<5x5xf32>) -> tensor<5x5xf32> {
  %m = fuser.max %x dims = [1] : tensor<5x5xf32> -> tensor<5xf32>
  %mb = fuser.broadcast %m dims = [0] : tensor<5xf32> -> tensor<5x5xf32>
  %y = fuser.mul %x, %mb : tensor<5x5xf32>
  %p = fuser.permute %y perm = [1, 0] : tensor<5x5xf32> -> tensor<5x5xf32>
  return %p : tensor<5x5xf32>
}

// -----

// Results that are an argument or repeat an earlier result get their own
// value (an identity cast), so that a kernel fills every result buffer: here
// the one pointwise kernel that computes exp also copies x and stores exp
// twice (random-fusion seed 692237533 was "fuser does not copy buffers").
// CHECK-LABEL: func.func @aliased_results
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-SAME: fuser.schedulers = ["pointwise"]
// CHECK: %[[E:.*]] = fuser.exp %[[X]] {fuser.segment = 0 : i64}
// CHECK: %[[C0:.*]] = fuser.cast %[[X]] {fuser.segment = 0 : i64}
// CHECK: %[[C1:.*]] = fuser.cast %[[E]] {fuser.segment = 0 : i64}
// CHECK: return %[[C0]], %[[E]], %[[C1]]
func.func @aliased_results(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = fuser.exp %x : tensor<4xf32>
  return %x, %e, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Results that reshape a value a kernel computes are views: in no segment,
// the kernel writes the value into the result's buffer. A value that has a
// buffer already (here: returned itself too) is viewed through an identity
// cast (a second store), so even a reshape of a normalization's output
// costs no copy kernel.
// CHECK-LABEL: func.func @result_views
// CHECK-SAME: fuser.schedulers = ["normalization"]
// CHECK: %[[Y:.*]] = fuser.div {{.*}} {fuser.segment = 0 : i64}
// CHECK: %[[C0:.*]] = fuser.cast %[[Y]] {fuser.segment = 0 : i64}
// CHECK: %[[V0:.*]] = fuser.reshape %[[C0]] {fuser.result_view}
// CHECK: %[[C1:.*]] = fuser.cast %[[Y]] {fuser.segment = 0 : i64}
// CHECK: %[[V1:.*]] = fuser.reshape %[[C1]] {fuser.result_view}
// CHECK: return %[[V0]], %[[V1]], %[[Y]]
// DUMP: fusion @result_views: 1 segment
// DUMP-NEXT: segment 0: normalization, 9 ops (max broadcast sub exp sum broadcast div cast cast)
// DUMP-NEXT: result 0: a reshape of segment 0's value, written there by its kernel (no copy)
// DUMP-NEXT: result 1: a reshape of segment 0's value, written there by its kernel (no copy)
func.func @result_views(%x: tensor<8x128xf32>) -> (tensor<8x1x128xf32>, tensor<1024xf32>, tensor<8x128xf32>) {
  %m = fuser.max %x dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %mb = fuser.broadcast %m dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %s = fuser.sub %x, %mb : tensor<8x128xf32>
  %e = fuser.exp %s : tensor<8x128xf32>
  %t = fuser.sum %e dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %tb = fuser.broadcast %t dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %y = fuser.div %e, %tb : tensor<8x128xf32>
  %v0 = fuser.reshape %y : tensor<8x128xf32> -> tensor<8x1x128xf32>
  %v1 = fuser.reshape %y : tensor<8x128xf32> -> tensor<1024xf32>
  return %v0, %v1, %y : tensor<8x1x128xf32>, tensor<1024xf32>, tensor<8x128xf32>
}

// -----

// A reshape of an argument is no view (the argument's buffer is the
// caller's): it stays a kernel, a copy.
// CHECK-LABEL: func.func @reshape_of_argument
// CHECK: fuser.reshape {{.*}} {fuser.segment = 0 : i64}
// CHECK-NOT: fuser.result_view
func.func @reshape_of_argument(%x: tensor<8x128xf32>) -> tensor<1024xf32> {
  %v = fuser.reshape %x : tensor<8x128xf32> -> tensor<1024xf32>
  return %v : tensor<1024xf32>
}

// -----

// The first reshape of a value with no other buffer views it directly.
// CHECK-LABEL: func.func @view_of_reduction
// CHECK: %[[S:.*]] = fuser.sum {{.*}} {fuser.segment = 0 : i64}
// CHECK-NEXT: %[[V:.*]] = fuser.reshape %[[S]] {fuser.result_view}
// CHECK-NEXT: return %[[V]]
// DUMP: fusion @view_of_reduction: 1 segment
// DUMP-NEXT: segment 0: reduction, 2 ops (exp sum)
// DUMP-NEXT: result 0: a reshape of segment 0's value
func.func @view_of_reduction(%x: tensor<8x128xf32>) -> tensor<8x1xf32> {
  %e = fuser.exp %x : tensor<8x128xf32>
  %s = fuser.sum %e dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %v = fuser.reshape %s : tensor<8xf32> -> tensor<8x1xf32>
  return %v : tensor<8x1xf32>
}

// -----

// A value that two segments need and that depends on no reduction (the
// f32 cast of an input, xhat = (x - mean) * rstd) is recomputed in the
// segment that reads it, not written to memory by one kernel and read
// back by the other. Here the column sum and the column normalization
// after it both read h (512 rows: longer than a block holds on chip): each
// computes it.
// CHECK-LABEL: func.func @recompute
// CHECK-SAME: fuser.schedulers = ["reduction", "pointwise"]
// CHECK-DAG: %[[C0:.*]] = fuser.cast %arg0 {fuser.segment = 0 : i64}
// CHECK-DAG: %[[C1:.*]] = fuser.cast %arg0 {fuser.segment = 1 : i64}
// CHECK-DAG: %[[H0:.*]] = fuser.mul %[[C0]], %{{.*}} {fuser.segment = 0 : i64}
// CHECK-DAG: %[[H1:.*]] = fuser.mul %[[C1]], %{{.*}} {fuser.segment = 1 : i64}
// CHECK-DAG: fuser.sum %[[H0]] dims = [0] {fuser.segment = 0 : i64}
// CHECK-DAG: fuser.div %[[H1]], %{{.*}} {fuser.segment = 1 : i64}
// DUMP: fusion @recompute: 2 segments
// DUMP-NEXT: segment 0: reduction, 4 ops (cast broadcast mul sum)
// DUMP-NEXT: segment 1: pointwise, 5 ops (cast broadcast mul broadcast div)
// DUMP: 1 value that a segment reads from another recomputed there from the arguments (no intermediate)
func.func @recompute(%x: tensor<512x128xbf16>, %s: tensor<512x1xf32>) -> (tensor<128xf32>, tensor<512x128xf32>) {
  %xf = fuser.cast %x : tensor<512x128xbf16> to tensor<512x128xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<512x1xf32> -> tensor<512x128xf32>
  %h = fuser.mul %xf, %sb : tensor<512x128xf32>
  %col = fuser.sum %h dims = [0] : tensor<512x128xf32> -> tensor<128xf32>
  %cb = fuser.broadcast %col dims = [1] : tensor<128xf32> -> tensor<512x128xf32>
  %y = fuser.div %h, %cb : tensor<512x128xf32>
  return %col, %y : tensor<128xf32>, tensor<512x128xf32>
}

// -----

// A kernel computes at most 16 reductions (kMaxReductionsPerKernel): LLVM's
// time grows faster than a kernel's size (100 chained softmaxes in one
// kernel took 107 s to compile), so 17 chained row centerings, one
// reduction each, become two kernels (the first sum alone, then 16 passes
// over the row), and the dump says why.
// CHECK-LABEL: func.func @centering_chain
// CHECK-SAME: fuser.schedulers = ["reduction", "normalization"]
// DUMP: fusion @centering_chain: 2 segments
// DUMP: more than 16 reductions in one kernel (compile time grows faster than the kernel)
func.func @centering_chain(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m0 = fuser.sum %x dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b0 = fuser.broadcast %m0 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c0 = fuser.sub %x, %b0 : tensor<8x128xf32>
  %m1 = fuser.sum %c0 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b1 = fuser.broadcast %m1 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c1 = fuser.sub %c0, %b1 : tensor<8x128xf32>
  %m2 = fuser.sum %c1 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b2 = fuser.broadcast %m2 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c2 = fuser.sub %c1, %b2 : tensor<8x128xf32>
  %m3 = fuser.sum %c2 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b3 = fuser.broadcast %m3 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c3 = fuser.sub %c2, %b3 : tensor<8x128xf32>
  %m4 = fuser.sum %c3 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b4 = fuser.broadcast %m4 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c4 = fuser.sub %c3, %b4 : tensor<8x128xf32>
  %m5 = fuser.sum %c4 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b5 = fuser.broadcast %m5 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c5 = fuser.sub %c4, %b5 : tensor<8x128xf32>
  %m6 = fuser.sum %c5 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b6 = fuser.broadcast %m6 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c6 = fuser.sub %c5, %b6 : tensor<8x128xf32>
  %m7 = fuser.sum %c6 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b7 = fuser.broadcast %m7 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c7 = fuser.sub %c6, %b7 : tensor<8x128xf32>
  %m8 = fuser.sum %c7 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b8 = fuser.broadcast %m8 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c8 = fuser.sub %c7, %b8 : tensor<8x128xf32>
  %m9 = fuser.sum %c8 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b9 = fuser.broadcast %m9 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c9 = fuser.sub %c8, %b9 : tensor<8x128xf32>
  %m10 = fuser.sum %c9 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b10 = fuser.broadcast %m10 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c10 = fuser.sub %c9, %b10 : tensor<8x128xf32>
  %m11 = fuser.sum %c10 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b11 = fuser.broadcast %m11 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c11 = fuser.sub %c10, %b11 : tensor<8x128xf32>
  %m12 = fuser.sum %c11 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b12 = fuser.broadcast %m12 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c12 = fuser.sub %c11, %b12 : tensor<8x128xf32>
  %m13 = fuser.sum %c12 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b13 = fuser.broadcast %m13 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c13 = fuser.sub %c12, %b13 : tensor<8x128xf32>
  %m14 = fuser.sum %c13 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b14 = fuser.broadcast %m14 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c14 = fuser.sub %c13, %b14 : tensor<8x128xf32>
  %m15 = fuser.sum %c14 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b15 = fuser.broadcast %m15 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c15 = fuser.sub %c14, %b15 : tensor<8x128xf32>
  %m16 = fuser.sum %c15 dims = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %b16 = fuser.broadcast %m16 dims = [0] : tensor<8xf32> -> tensor<8x128xf32>
  %c16 = fuser.sub %c15, %b16 : tensor<8x128xf32>
  return %c16 : tensor<8x128xf32>
}

// -----

// group_norm: the statistics over groups of channels ([2, 16, 3, 3] as
// [2, 4, 36]), the normalized value reshaped back for the per-channel
// affine. A reshape moves no element out of its row: one normalization
// kernel, which computes the affine's values at the row element of the
// same index (GroupInfo::sViews).
// CHECK-LABEL: func.func @group_norm_affine
// CHECK-SAME: fuser.schedulers = ["normalization"]
// DUMP: fusion @group_norm_affine: 1 segment
// DUMP-NEXT: segment 0: normalization
func.func @group_norm_affine(%x: tensor<2x16x3x3xf32>, %w: tensor<16xf32>) -> tensor<2x16x3x3xf32> {
  %z = fuser.reshape %x : tensor<2x16x3x3xf32> -> tensor<2x4x36xf32>
  %m = fuser.mean %z dims = [2] keepdim = true : tensor<2x4x36xf32> -> tensor<2x4x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x36xf32>
  %c = fuser.sub %z, %mb : tensor<2x4x36xf32>
  %v = fuser.reshape %c : tensor<2x4x36xf32> -> tensor<2x16x3x3xf32>
  %wb = fuser.broadcast %w dims = [1] : tensor<16xf32> -> tensor<2x16x3x3xf32>
  %y = fuser.mul %v, %wb : tensor<2x16x3x3xf32>
  return %y : tensor<2x16x3x3xf32>
}

// -----

// The same view beside a reduction across rows: the inner-outer kernel
// does not compute views, so the column sum takes a kernel of its own.
// CHECK-LABEL: func.func @view_beside_columns
// CHECK-SAME: fuser.schedulers = ["{{.*}}", "{{.*}}"]
// DUMP: fusion @view_beside_columns: 2 segments
// DUMP: the rows' values are reshaped beside reductions across rows: the column reductions need a kernel of their own
func.func @view_beside_columns(%x: tensor<8x64xf32>) -> (tensor<8x8x8xf32>, tensor<64xf32>) {
  %m = fuser.max %x dims = [1] keepdim = true : tensor<8x64xf32> -> tensor<8x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1] : tensor<8x1xf32> -> tensor<8x64xf32>
  %y = fuser.sub %x, %mb : tensor<8x64xf32>
  %v = fuser.reshape %y : tensor<8x64xf32> -> tensor<8x8x8xf32>
  %e = fuser.exp %v : tensor<8x8x8xf32>
  %s = fuser.sum %y dims = [0] : tensor<8x64xf32> -> tensor<64xf32>
  return %e, %s : tensor<8x8x8xf32>, tensor<64xf32>
}

// -----

// group_norm's backward in small: the column sums dw and db read values of
// the dx kernel (xhat, from x and a saved statistic) and the dx kernel reads
// theirs (the f32 cast of dy). Every such value is recomputed by its reader,
// so the edges between the kernels are soft: the two column sums are one
// kernel though a path runs from one to the other through the dx kernel
// (before: three kernels, "merging would make a cycle through another
// kernel").
// CHECK-LABEL: func.func @soft_cycle
// CHECK-SAME: fuser.schedulers = ["normalization", "reduction"]
// CHECK-DAG: fuser.sum %{{.*}} dims = [0] {fuser.segment = 1 : i64}
// CHECK-DAG: fuser.sum %{{.*}} dims = [0] {fuser.segment = 1 : i64}
// DUMP: fusion @soft_cycle: 2 segments
// DUMP-NEXT: segment 0: normalization, 11 ops
// DUMP-NEXT: segment 1: reduction, 9 ops (cast cast reshape broadcast sub reshape mul sum sum)
// DUMP-NEXT: boundary 0 -> 1: reductions over different shapes or dims need separate kernels (recomputed there: no intermediate)
// DUMP-NEXT: boundary 1 -> 0: reductions over different shapes or dims need separate kernels (recomputed there: no intermediate)
func.func @soft_cycle(%x: tensor<64x256xbf16>, %dy: tensor<64x256xbf16>, %s: tensor<64x4x1xf32>) -> (tensor<64x256xf32>, tensor<256xf32>, tensor<256xf32>) {
  %xf = fuser.cast %x : tensor<64x256xbf16> to tensor<64x256xf32>
  %dyf = fuser.cast %dy : tensor<64x256xbf16> to tensor<64x256xf32>
  %z = fuser.reshape %xf : tensor<64x256xf32> -> tensor<64x4x64xf32>
  %dz = fuser.reshape %dyf : tensor<64x256xf32> -> tensor<64x4x64xf32>
  %sb = fuser.broadcast %s dims = [0, 1, 2] : tensor<64x4x1xf32> -> tensor<64x4x64xf32>
  %zh = fuser.sub %z, %sb : tensor<64x4x64xf32>
  %p = fuser.mul %dz, %zh : tensor<64x4x64xf32>
  %m = fuser.mean %p dims = [2] keepdim = true : tensor<64x4x64xf32> -> tensor<64x4x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1, 2] : tensor<64x4x1xf32> -> tensor<64x4x64xf32>
  %t = fuser.mul %zh, %mb : tensor<64x4x64xf32>
  %c = fuser.sub %dz, %t : tensor<64x4x64xf32>
  %dx = fuser.reshape %c : tensor<64x4x64xf32> -> tensor<64x256xf32>
  %xh = fuser.reshape %zh : tensor<64x4x64xf32> -> tensor<64x256xf32>
  %q = fuser.mul %dyf, %xh : tensor<64x256xf32>
  %dw = fuser.sum %q dims = [0] : tensor<64x256xf32> -> tensor<256xf32>
  %db = fuser.sum %dyf dims = [0] : tensor<64x256xf32> -> tensor<256xf32>
  return %dx, %dw, %db : tensor<64x256xf32>, tensor<256xf32>, tensor<256xf32>
}

// -----

// A returned constant or iota joins a pointwise segment of its shape, or
// fills its own: never a segment of another shape (a gradient of zeros
// next to a reduction).
// CHECK-LABEL: func.func @returned_constants
// CHECK-SAME: fuser.schedulers = ["reduction", "pointwise"]
// CHECK: fuser.sum {{.*}}fuser.segment = 0
// CHECK: fuser.constant 0.000000e+00 {fuser.segment = 1 : i64} : tensor<4x8xf32>
func.func @returned_constants(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %s = fuser.sum %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %z = fuser.constant 0.0 : tensor<4x8xf32>
  return %s, %z : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// Over a [1, 1] tensor a reduction over dim 0 and one over dim 1 are the
// column and the row domain of an inner-outer group, and the row
// reduction's input was the column reduction's result: the emitter found
// no value for it (a SIGSEGV; random_fusions seed 730027). A row reduction
// of a column result is row work: another kernel.
// CHECK-LABEL: func.func @row_of_column
// CHECK-SAME: fuser.schedulers = ["reduction", "reduction"]
// DUMP: fusion @row_of_column: 2 segments
// DUMP: boundary 0 -> 1: a value computed from a reduction across rows feeds the rows' computation or is moved: that needs another kernel
func.func @row_of_column(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %v, %m = fuser.var_mean %x dims = [0] keepdim = true : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  %v2, %m2 = fuser.var_mean %m dims = [1] correction = 0 keepdim = true : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
  return %m2 : tensor<1x1xf32>
}
