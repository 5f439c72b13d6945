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

// -----

// A linear backward (what fuser-vjp writes): the bias gradient, g summed
// over its rows (in f32 for bf16, cast back), joins the GEMM of the weight
// gradient g^T @ x, which reads g as its lhs transposed: cuBLASLt writes
// the sum over the contracted dim beside the product (its BGRAD epilogue),
// so db costs no kernel and no second read of g. The same in f32 (no casts),
// and through the reshape of a [B, S, F] gradient to rows, which the GEMM
// reads in place (an operand view: no copy kernel).
// CHECK-LABEL: func.func @bias_gradient
// CHECK-SAME: fuser.schedulers = ["matmul", "matmul", "matmul", "matmul"]
// CHECK: fuser.reshape %arg5 {fuser.operand_view}
// DUMP: fusion @bias_gradient: 4 segments
// DUMP-NEXT: segment 0: matmul, 1 ops (matmul)
// DUMP-NEXT: segment 1: matmul, 4 ops (matmul cast sum cast)
// DUMP-NEXT: segment 2: matmul, 2 ops (matmul sum)
// DUMP-NEXT: segment 3: matmul, 4 ops (matmul cast sum cast)
// DUMP: a reshape (fuser.reshape) of argument 5 that a GEMM reads in place (no kernel)
func.func @bias_gradient(%x: tensor<?x9xbf16>, %w: tensor<4x9xbf16>, %g: tensor<?x4xbf16>,
                         %xf: tensor<?x9xf32>, %gf: tensor<?x4xf32>, %g3: tensor<2x?x4xbf16>)
    -> (tensor<?x9xbf16>, tensor<4x9xbf16>, tensor<4xbf16>, tensor<4x9xf32>, tensor<4xf32>,
        tensor<4x9xbf16>, tensor<4xbf16>) {
  %gx = fuser.matmul %g, %w : (tensor<?x4xbf16>, tensor<4x9xbf16>) -> tensor<?x9xbf16>
  %gt = fuser.permute %g perm = [1, 0] : tensor<?x4xbf16> -> tensor<4x?xbf16>
  %gw = fuser.matmul %gt, %x : (tensor<4x?xbf16>, tensor<?x9xbf16>) -> tensor<4x9xbf16>
  %wide = fuser.cast %g : tensor<?x4xbf16> to tensor<?x4xf32>
  %s = fuser.sum %wide dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
  %gb = fuser.cast %s : tensor<4xf32> to tensor<4xbf16>
  %gft = fuser.permute %gf perm = [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  %gwf = fuser.matmul %gft, %xf : (tensor<4x?xf32>, tensor<?x9xf32>) -> tensor<4x9xf32>
  %gbf = fuser.sum %gf dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
  %g2 = fuser.reshape %g3 : tensor<2x?x4xbf16> -> tensor<?x4xbf16>
  %g2t = fuser.permute %g2 perm = [1, 0] : tensor<?x4xbf16> -> tensor<4x?xbf16>
  %gw3 = fuser.matmul %g2t, %x : (tensor<4x?xbf16>, tensor<?x9xbf16>) -> tensor<4x9xbf16>
  %wide3 = fuser.cast %g3 : tensor<2x?x4xbf16> to tensor<2x?x4xf32>
  %s3 = fuser.sum %wide3 dims = [0, 1] : tensor<2x?x4xf32> -> tensor<4xf32>
  %gb3 = fuser.cast %s3 : tensor<4xf32> to tensor<4xbf16>
  return %gx, %gw, %gb, %gwf, %gbf, %gw3, %gb3 : tensor<?x9xbf16>, tensor<4x9xbf16>, tensor<4xbf16>,
      tensor<4x9xf32>, tensor<4xf32>, tensor<4x9xbf16>, tensor<4xbf16>
}

// -----

// What cuBLASLt's bias gradient cannot take stays a reduction kernel: a g
// the fusion computes (its sum shares the kernel that computes g), a sum
// over the columns (not the GEMM's contracted dim), a product whose
// columns are known only at launch (cuBLASLt writes no gradient beside an
// empty product), and a batched product.
// DUMP: fusion @computed_gradient: 2 segments
// DUMP-NEXT: segment 0: reduction, 2 ops (mul sum)
// DUMP-NEXT: segment 1: matmul, 1 ops (matmul)
func.func @computed_gradient(%x: tensor<8x9xf32>, %g: tensor<8x4xf32>) -> (tensor<4x9xf32>, tensor<4xf32>) {
  %h = fuser.mul %g, %g : tensor<8x4xf32>, tensor<8x4xf32>
  %ht = fuser.permute %h perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %hw = fuser.matmul %ht, %x : (tensor<4x8xf32>, tensor<8x9xf32>) -> tensor<4x9xf32>
  %hb = fuser.sum %h dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
  return %hw, %hb : tensor<4x9xf32>, tensor<4xf32>
}

// -----

// DUMP: fusion @sum_of_columns: 2 segments
// DUMP-NEXT: segment 0: matmul, 1 ops (matmul)
// DUMP-NEXT: segment 1: reduction, 1 ops (sum)
func.func @sum_of_columns(%x: tensor<8x9xf32>, %g: tensor<8x4xf32>) -> (tensor<4x9xf32>, tensor<8xf32>) {
  %gt = fuser.permute %g perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %gw = fuser.matmul %gt, %x : (tensor<4x8xf32>, tensor<8x9xf32>) -> tensor<4x9xf32>
  %rows = fuser.sum %g dims = [1] : tensor<8x4xf32> -> tensor<8xf32>
  return %gw, %rows : tensor<4x9xf32>, tensor<8xf32>
}

// -----

// DUMP: fusion @columns_at_launch: 2 segments
// DUMP-NEXT: segment 0: matmul, 1 ops (matmul)
// DUMP-NEXT: segment 1: reduction, 1 ops (sum)
func.func @columns_at_launch(%x: tensor<8x?xf32>, %g: tensor<8x4xf32>) -> (tensor<4x?xf32>, tensor<4xf32>) {
  %gt = fuser.permute %g perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %gw = fuser.matmul %gt, %x : (tensor<4x8xf32>, tensor<8x?xf32>) -> tensor<4x?xf32>
  %gb = fuser.sum %g dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
  return %gw, %gb : tensor<4x?xf32>, tensor<4xf32>
}

// -----

// DUMP: fusion @batched: 2 segments
// DUMP-NEXT: segment 0: matmul, 1 ops (matmul)
// DUMP-NEXT: segment 1: reduction, 1 ops (sum)
func.func @batched(%x: tensor<3x8x9xf32>, %g: tensor<3x8x4xf32>) -> (tensor<3x4x9xf32>, tensor<4xf32>) {
  %gt = fuser.permute %g perm = [0, 2, 1] : tensor<3x8x4xf32> -> tensor<3x4x8xf32>
  %gw = fuser.matmul %gt, %x : (tensor<3x4x8xf32>, tensor<3x8x9xf32>) -> tensor<3x4x9xf32>
  %gb = fuser.sum %g dims = [0, 1] : tensor<3x8x4xf32> -> tensor<4xf32>
  return %gw, %gb : tensor<3x4x9xf32>, tensor<4xf32>
}

// -----

// A reshape of an argument that only GEMMs read, directly or transposed, is
// read in place (the linear backward of a [B, S, H] input: its rows); one
// that a kernel reads too is computed, as any reshape.
// CHECK-LABEL: func.func @operand_views
// CHECK: fuser.reshape %arg0 {fuser.operand_view}
// CHECK: fuser.reshape %arg1 {fuser.operand_view}
// CHECK: fuser.reshape %arg2 {fuser.segment
// DUMP: fusion @operand_views: 3 segments
// DUMP-NEXT: segment 0: matmul, 1 ops (matmul)
// DUMP-NEXT: segment 1: pointwise, 2 ops (reshape exp)
// DUMP-NEXT: segment 2: matmul, 1 ops (matmul)
// DUMP: a reshape (fuser.reshape) of argument 0 that a GEMM reads in place (no kernel)
// DUMP: a reshape (fuser.reshape) of argument 1 that a GEMM reads in place (no kernel)
func.func @operand_views(%x: tensor<2x3x8xf32>, %g: tensor<2x3x4xf32>, %y: tensor<2x3x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<6x8xf32>) {
  %x2 = fuser.reshape %x : tensor<2x3x8xf32> -> tensor<6x8xf32>
  %g2 = fuser.reshape %g : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %gt = fuser.permute %g2 perm = [1, 0] : tensor<6x4xf32> -> tensor<4x6xf32>
  %gw = fuser.matmul %gt, %x2 : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  %y2 = fuser.reshape %y : tensor<2x3x8xf32> -> tensor<6x8xf32>
  %yw = fuser.matmul %gt, %y2 : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  %e = fuser.exp %y2 : tensor<6x8xf32>
  return %gw, %yw, %e : tensor<4x8xf32>, tensor<4x8xf32>, tensor<6x8xf32>
}

// -----

// The boundary after a GEMM that writes a bias gradient names the library
// call, not the sum that comes first in the block (found by review).
// DUMP: fusion @boundary_after_bias_gradient: 2 segments
// DUMP-NEXT: segment 0: matmul, 2 ops (sum matmul)
// DUMP-NEXT: segment 1: matmul, 1 ops (linear)
// DUMP-NEXT: boundary 0 -> 1: 'fuser.matmul' is a library call (cuBLASLt)
func.func @boundary_after_bias_gradient(%x: tensor<6x8xf32>, %g: tensor<6x4xf32>, %z: tensor<3x8xf32>) -> tensor<3x4xf32> {
  %db = fuser.sum %g dims = [0] : tensor<6x4xf32> -> tensor<4xf32>
  %gt = fuser.permute %g perm = [1, 0] : tensor<6x4xf32> -> tensor<4x6xf32>
  %dw = fuser.matmul %gt, %x : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  %l = fuser.linear %z, %dw bias %db : (tensor<3x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %l : tensor<3x4xf32>
}

// -----

// A g that is a view argument is not folded: its layout could have the
// GEMM read it untransposed, a layout of cuBLASLt's bias gradient that
// nobody here has run.
// DUMP: fusion @view_gradient: 2 segments
// DUMP-NEXT: segment 0: matmul, 1 ops (matmul)
// DUMP-NEXT: segment 1: reduction, 1 ops (sum)
func.func @view_gradient(%x: tensor<8x9xf32>, %g: tensor<8x4xf32> {fuser.strides = strided<[1, 8]>}) -> (tensor<4x9xf32>, tensor<4xf32>) {
  %gt = fuser.permute %g perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %gw = fuser.matmul %gt, %x : (tensor<4x8xf32>, tensor<8x9xf32>) -> tensor<4x9xf32>
  %gb = fuser.sum %g dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
  return %gw, %gb : tensor<4x9xf32>, tensor<4xf32>
}
