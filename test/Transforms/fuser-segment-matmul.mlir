// RUN: fuser-opt %s -split-input-file --fuser-segment | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-segment=dump 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP

// A matmul is a library call: a segment of its own. The pointwise work
// before it is a kernel that writes its operand; the work after it reads
// its result.
// CHECK-LABEL: func.func @around
// CHECK-SAME: fuser.schedulers = ["pointwise", "matmul", "pointwise"]
// CHECK: fuser.exp {{.*}} {fuser.segment = 0 : i64}
// CHECK: fuser.matmul {{.*}} {fuser.segment = 1 : i64}
// CHECK: fuser.tanh {{.*}} {fuser.segment = 2 : i64}
// DUMP: fusion @around: 3 segments
// DUMP-NEXT: segment 0: pointwise, 1 ops (exp)
// DUMP-NEXT: segment 1: matmul, 1 ops (matmul)
// DUMP-NEXT: segment 2: pointwise, 1 ops (tanh)
// DUMP-NEXT: boundary 0 -> 1: 'fuser.matmul' is a library call (cuBLASLt): a segment of its own, whose operands must be in memory, written by an earlier kernel
// DUMP-NEXT: boundary 1 -> 2: 'fuser.matmul' is a library call (cuBLASLt): a segment of its own, whose operands must be in memory, written by an earlier kernel
func.func @around(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = fuser.exp %a : tensor<8x16xf32>
  %1 = fuser.matmul %0, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %2 = fuser.tanh %1 : tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}

// -----

// A cast feeding a linear is not recomputed into it (nothing is: the
// library reads memory), and two linears never merge.
// CHECK-LABEL: func.func @two_linears
// CHECK-SAME: fuser.schedulers = ["pointwise", "matmul", "matmul"]
// DUMP: fusion @two_linears: 3 segments
// DUMP-NEXT: segment 0: pointwise, 1 ops (cast)
// DUMP-NEXT: segment 1: matmul, 1 ops (linear)
// DUMP-NEXT: segment 2: matmul, 1 ops (linear)
func.func @two_linears(%x: tensor<?x32xf32>, %w: tensor<8x32xbf16>, %v: tensor<8x32xbf16>)
    -> (tensor<?x8xbf16>, tensor<?x8xbf16>) {
  %0 = fuser.cast %x : tensor<?x32xf32> to tensor<?x32xbf16>
  %1 = fuser.linear %0, %w : (tensor<?x32xbf16>, tensor<8x32xbf16>) -> tensor<?x8xbf16>
  %2 = fuser.linear %0, %v : (tensor<?x32xbf16>, tensor<8x32xbf16>) -> tensor<?x8xbf16>
  return %1, %2 : tensor<?x8xbf16>, tensor<?x8xbf16>
}

// -----

// Arguments go straight to the library: one segment, no kernel.
// CHECK-LABEL: func.func @alone
// CHECK-SAME: fuser.schedulers = ["matmul"]
func.func @alone(%a: tensor<3x8x16xf16>, %b: tensor<16x4xf16>) -> tensor<3x8x4xf16> {
  %0 = fuser.matmul %a, %b : (tensor<3x8x16xf16>, tensor<16x4xf16>) -> tensor<3x8x4xf16>
  return %0 : tensor<3x8x4xf16>
}

// -----

// A transpose of the last two dims that only matmuls read is in no
// segment: the GEMM reads its input through a transpose flag. The exp that
// computes it is a kernel whose output the GEMM reads.
// CHECK-LABEL: func.func @transposed
// CHECK-SAME: fuser.schedulers = ["pointwise", "matmul"]
// CHECK: fuser.exp {{.*}} {fuser.segment = 0 : i64}
// CHECK: fuser.permute {{.*}} {fuser.transposed_operand}
// CHECK: fuser.matmul {{.*}} {fuser.segment = 1 : i64}
// DUMP: fusion @transposed: 2 segments
// DUMP-NEXT: segment 0: pointwise, 1 ops (exp)
// DUMP-NEXT: segment 1: matmul, 1 ops (matmul)
// DUMP: a transpose (fuser.permute) that segment 1's GEMM reads through its transpose flag (no kernel)
func.func @transposed(%q: tensor<2x8x16xbf16>, %k: tensor<2x8x16xbf16>) -> tensor<2x8x8xbf16> {
  %e = fuser.exp %k : tensor<2x8x16xbf16>
  %t = fuser.permute %e perm = [0, 2, 1] : tensor<2x8x16xbf16> -> tensor<2x16x8xbf16>
  %0 = fuser.matmul %q, %t : (tensor<2x8x16xbf16>, tensor<2x16x8xbf16>) -> tensor<2x8x8xbf16>
  return %0 : tensor<2x8x8xbf16>
}

// -----

// A transpose something else reads too is a kernel's (here beside the exp
// that reads it), which writes it for the GEMM.
// CHECK-LABEL: func.func @not_transposed
// CHECK-SAME: fuser.schedulers = ["pointwise", "matmul"]
// CHECK-NOT: fuser.transposed_operand
func.func @not_transposed(%a: tensor<8x16xf32>, %b: tensor<4x16xf32>) -> (tensor<8x4xf32>, tensor<16x4xf32>) {
  %t = fuser.permute %b perm = [1, 0] : tensor<4x16xf32> -> tensor<16x4xf32>
  %0 = fuser.matmul %a, %t : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %1 = fuser.exp %t : tensor<16x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<16x4xf32>
}

// -----

// A transpose of a view argument: read in place when the GEMM can read the
// view (a static unit stride in its last two dims: here the view is itself
// a transpose, and the GEMM reads it untransposed); a kernel writes it
// dense when it cannot (no unit stride).
// CHECK-LABEL: func.func @view_transposed
// CHECK-SAME: fuser.schedulers = ["matmul", "pointwise", "matmul"]
// CHECK: fuser.permute %arg1 {{.*}} {fuser.transposed_operand}
// CHECK: fuser.permute %arg2 {{.*}} {fuser.segment = 1 : i64}
func.func @view_transposed(%a: tensor<8x16xf32>, %w: tensor<4x16xf32> {fuser.strides = strided<[1, 4]>},
                           %v: tensor<4x16xf32> {fuser.strides = strided<[2, 8]>}) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %t = fuser.permute %w perm = [1, 0] : tensor<4x16xf32> -> tensor<16x4xf32>
  %0 = fuser.matmul %a, %t : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %u = fuser.permute %v perm = [1, 0] : tensor<4x16xf32> -> tensor<16x4xf32>
  %1 = fuser.matmul %a, %u : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// The activations cuBLASLt applies in its epilogue join the library call's
// segment: a relu, a gelu with tanh's approximation. gelu's exact form, and
// an activation of a matmul result something else reads too, stay kernels.
// CHECK-LABEL: func.func @epilogues
// CHECK-SAME: fuser.schedulers = ["matmul", "matmul", "matmul", "matmul", "pointwise"]
// DUMP: fusion @epilogues: 5 segments
// DUMP-NEXT: segment 0: matmul, 2 ops (linear relu)
// DUMP-NEXT: segment 1: matmul, 2 ops (matmul gelu)
// DUMP-NEXT: segment 2: matmul, 1 ops (matmul)
// DUMP-NEXT: segment 3: matmul, 1 ops (matmul)
// DUMP-NEXT: segment 4: pointwise, 3 ops (gelu relu exp)
func.func @epilogues(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %v: tensor<16x4xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = fuser.linear %x, %w : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  %1 = fuser.relu %0 : tensor<8x4xf32>
  %2 = fuser.matmul %x, %v : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %3 = fuser.gelu %2 approximate = tanh : tensor<8x4xf32>
  %4 = fuser.matmul %x, %v : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %5 = fuser.gelu %4 : tensor<8x4xf32>
  %6 = fuser.matmul %x, %v : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %7 = fuser.relu %6 : tensor<8x4xf32>
  %8 = fuser.exp %6 : tensor<8x4xf32>
  return %1, %3, %5, %7, %8 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A gelu (tanh) of a matmul result that is also returned (a training
// forward keeps the pre-activation for the backward) joins the library call
// when its rows are a multiple of 8 elements: cuBLASLt's GELU_AUX writes
// both. With 4-element rows, or a relu (whose AUX is a bit mask, not the
// input), it stays a kernel.
// CHECK-LABEL: func.func @keeps_input
// CHECK-SAME: fuser.schedulers = ["matmul", "matmul", "pointwise", "matmul", "pointwise"]
// DUMP: fusion @keeps_input: 5 segments
// DUMP-NEXT: segment 0: matmul, 2 ops (linear gelu)
// DUMP-NEXT: segment 1: matmul, 1 ops (linear)
// DUMP-NEXT: segment 2: pointwise, 1 ops (gelu)
// DUMP-NEXT: segment 3: matmul, 1 ops (linear)
// DUMP-NEXT: segment 4: pointwise, 1 ops (relu)
func.func @keeps_input(%x: tensor<8x16xbf16>, %w: tensor<24x16xbf16>, %b: tensor<24xbf16>, %v: tensor<4x16xbf16>)
    -> (tensor<8x24xbf16>, tensor<8x24xbf16>, tensor<8x4xbf16>, tensor<8x4xbf16>, tensor<8x24xbf16>, tensor<8x24xbf16>) {
  %h = fuser.linear %x, %w bias %b : (tensor<8x16xbf16>, tensor<24x16xbf16>, tensor<24xbf16>) -> tensor<8x24xbf16>
  %y = fuser.gelu %h approximate = tanh : tensor<8x24xbf16>
  %h2 = fuser.linear %x, %v : (tensor<8x16xbf16>, tensor<4x16xbf16>) -> tensor<8x4xbf16>
  %y2 = fuser.gelu %h2 approximate = tanh : tensor<8x4xbf16>
  %h3 = fuser.linear %x, %w : (tensor<8x16xbf16>, tensor<24x16xbf16>) -> tensor<8x24xbf16>
  %y3 = fuser.relu %h3 : tensor<8x24xbf16>
  return %y, %h, %y2, %h2, %y3, %h3 : tensor<8x24xbf16>, tensor<8x24xbf16>, tensor<8x4xbf16>, tensor<8x4xbf16>, tensor<8x24xbf16>, tensor<8x24xbf16>
}
