// A matmul or linear segment is no kernel: a fuser.gemm in the plan, the
// row-major m x k by k x n product with a batch stride per operand.
// RUN: fuser-opt %s -split-input-file --fuser-decompose --fuser-segment --fuser-emit-kernels | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-decompose --fuser-segment --fuser-emit-kernels=allow-tf32=1 | FileCheck %s --check-prefix=TF32

// A batch of lhs matrices against one rhs matrix: one GEMM of 3 * 8 rows.
// CHECK-LABEL: func.func @folded
// CHECK-NOT: fuser.launch
// CHECK: fuser.gemm %arg0, %arg1 -> %arg2 sizes(%c24, %c4, %c16, %c1) ld(%c16, %c4, %c4) batch_strides(%c0, %c0, %c0) : memref<3x8x16xf16>, memref<16x4xf16>, memref<3x8x4xf16>
func.func @folded(%a: tensor<3x8x16xf16>, %b: tensor<16x4xf16>) -> tensor<3x8x4xf16> {
  %0 = fuser.matmul %a, %b : (tensor<3x8x16xf16>, tensor<16x4xf16>) -> tensor<3x8x4xf16>
  return %0 : tensor<3x8x4xf16>
}

// -----

// One lhs matrix for every rhs matrix: a batch whose lhs stride is 0, of a
// size known at launch.
// CHECK-LABEL: func.func @batched
// CHECK: %[[DIM:.*]] = memref.dim %arg1
// CHECK: fuser.gemm %arg0, %arg1 -> %arg2 sizes(%c8, %c4, %c16, %[[DIM]]) ld(%c16, %c4, %c4) batch_strides(%c0, %c64, %c32)
func.func @batched(%a: tensor<8x16xf32>, %b: tensor<?x16x4xf32>) -> tensor<?x8x4xf32> {
  %0 = fuser.matmul %a, %b : (tensor<8x16xf32>, tensor<?x16x4xf32>) -> tensor<?x8x4xf32>
  return %0 : tensor<?x8x4xf32>
}

// -----

// A dot product: a 1 x 16 row times a 16 x 1 column.
// CHECK-LABEL: func.func @vectors
// CHECK: fuser.gemm %arg0, %arg1 -> %arg2 sizes(%c1, %c1, %c16, %c1) ld(%c16, %c1, %c1) batch_strides(%c0, %c0, %c1) : memref<16xf64>, memref<16xf64>, memref<f64>
func.func @vectors(%a: tensor<16xf64>, %b: tensor<16xf64>) -> tensor<f64> {
  %0 = fuser.matmul %a, %b : (tensor<16xf64>, tensor<16xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

// linear: the weight is B stored transposed; the bias is the epilogue's.
// Row strides of sizes known at launch are at least 1.
// CHECK-LABEL: func.func @linear
// CHECK-DAG: %[[M:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[K:.*]] = memref.dim %arg0, %c1
// CHECK-DAG: %[[N:.*]] = memref.dim %arg1, %c0
// CHECK: %[[LDA:.*]] = arith.maxsi %[[K]], %c1
// CHECK: %[[LDB:.*]] = arith.maxsi %[[K]], %c1
// CHECK: %[[LDD:.*]] = arith.maxsi %[[N]], %c1
// CHECK: fuser.gemm %arg0, %arg1 -> %arg3 bias %arg2 sizes(%[[M]], %[[N]], %[[K]], %c1) ld(%[[LDA]], %[[LDB]], %[[LDD]]) batch_strides(%c0, %c0, %c0) {trans_b}
func.func @linear(%x: tensor<?x?xbf16>, %w: tensor<?x?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = fuser.linear %x, %w bias %b : (tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?xbf16>) -> tensor<?x?xbf16>
  return %0 : tensor<?x?xbf16>
}

// -----

// Batch dims broadcast along some dims only: fuser-decompose broadcasts
// both operands to the whole batch, one kernel writes them (the two
// broadcasts side by side: HorizontalPointwise.cpp), and the GEMM reads one
// matrix of each per batch element.
// CHECK-LABEL: func.func @mixed
// CHECK: fuser.launch @mixed_kernels::@mixed_0 {{.*}} args(%arg0, %arg1, %[[A:.*]], %[[B:.*]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-NOT: fuser.launch
// CHECK: fuser.gemm %[[A]], %[[B]] -> %arg2 sizes(%c3, %c2, %c4, %c10) ld(%c4, %c2, %c2) batch_strides(%c12, %c8, %c6)
func.func @mixed(%a: tensor<2x1x3x4xf32>, %b: tensor<1x5x4x2xf32>) -> tensor<2x5x3x2xf32> {
  %0 = fuser.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<1x5x4x2xf32>) -> tensor<2x5x3x2xf32>
  return %0 : tensor<2x5x3x2xf32>
}

// -----

// A transposed operand is read in place: A stored k x m (a gradient's
// g^T), its row stride m.
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: fuser.launch
// CHECK: %[[K:.*]] = memref.dim %arg0, %c0
// CHECK: fuser.gemm %arg0, %arg1 -> %arg2 sizes(%c4, %c9, %[[K]], %c1) ld(%c4, %c9, %c9) batch_strides(%c0, %c0, %c36) {trans_a} : memref<?x4xf32>, memref<?x9xf32>, memref<4x9xf32>
func.func @transposed(%g: tensor<?x4xf32>, %x: tensor<?x9xf32>) -> tensor<4x9xf32> {
  %t = fuser.permute %g perm = [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  %0 = fuser.matmul %t, %x : (tensor<4x?xf32>, tensor<?x9xf32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

// View arguments are read in place, their layout in the GEMM: a transposed
// view (x.t(): rows one element apart) as trans_a with the column stride as
// lda; a slice of wider rows (stride 16) as ldb 16; a permuted batch (rows
// 20 apart, matrices 5 apart) as lda 20 and batch stride 5.
// CHECK-LABEL: func.func @views
// CHECK-NOT: fuser.launch
// CHECK: fuser.gemm %arg0, %arg1 -> %arg4 sizes(%c6, %c4, %c10, %c1) ld(%c6, %c16, %c4) batch_strides(%c0, %c0, %c24) {trans_a} : memref<6x10xf32, strided<[1, 6]>>, memref<10x4xf32, strided<[16, 1]>>
// CHECK: fuser.gemm %arg2, %arg3 -> %arg5 sizes(%c3, %c2, %c5, %c4) ld(%c20, %c2, %c2) batch_strides(%c5, %c10, %c6) : memref<4x3x5xf32, strided<[5, 20, 1]>>, memref<4x5x2xf32>
func.func @views(%a: tensor<6x10xf32> {fuser.strides = strided<[1, 6]>},
                 %b: tensor<10x4xf32> {fuser.strides = strided<[16, 1]>},
                 %c: tensor<4x3x5xf32> {fuser.strides = strided<[5, 20, 1]>},
                 %d: tensor<4x5x2xf32>) -> (tensor<6x4xf32>, tensor<4x3x2xf32>) {
  %0 = fuser.matmul %a, %b : (tensor<6x10xf32>, tensor<10x4xf32>) -> tensor<6x4xf32>
  %1 = fuser.matmul %c, %d : (tensor<4x3x5xf32>, tensor<4x5x2xf32>) -> tensor<4x3x2xf32>
  return %0, %1 : tensor<6x4xf32>, tensor<4x3x2xf32>
}

// -----

// linear's weight given as w.t() of an [in, out] tensor (strides [1, ?]):
// B is read untransposed, its row stride passed at launch. x's batch of
// rows joins into m when its row strides chain (checked at launch here:
// the plan compares dim 0's stride with dim 1's times its size).
// CHECK-LABEL: func.func @linear_views
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:3, %[[XS:.*]]:3 = memref.extract_strided_metadata %arg0
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[WS:.*]]:2 = memref.extract_strided_metadata %arg1
// CHECK: %[[JOIN:.*]] = arith.muli %[[XS]]#1, %c3
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[XS]]#0, %[[JOIN]]
// CHECK: fuser.check %[[OK]], "'fuser.linear' reads a view whose row dims the GEMM cannot step through with one stride: the stride of dim 0 ({}) is not the stride times the size of dim 1 ({}); pass it dense"
// CHECK: %[[LDA:.*]] = arith.maxsi %[[XS]]#1, %c1
// CHECK: %[[LDB:.*]] = arith.maxsi %[[WS]]#1, %c1
// CHECK: fuser.gemm %arg0, %arg1 -> %arg2 sizes(%c6, %c5, %c32, %c1) ld(%[[LDA]], %[[LDB]], %c5)
// CHECK-NOT: trans_b
func.func @linear_views(%x: tensor<2x3x32xf32> {fuser.strides = strided<[?, ?, 1]>},
                        %w: tensor<5x32xf32> {fuser.strides = strided<[1, ?]>}) -> tensor<2x3x5xf32> {
  %0 = fuser.linear %x, %w : (tensor<2x3x32xf32>, tensor<5x32xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// allow-tf32 marks f32 products only (bf16 ones are tensor-core products
// anyway).
// TF32-LABEL: func.func @tf32
// TF32: fuser.gemm {{.*}} {allow_tf32} : memref<8x16xf32>
// TF32: fuser.gemm
// TF32-NOT: allow_tf32
// TF32-SAME: memref<8x16xbf16>
func.func @tf32(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x16xbf16>, %d: tensor<16x4xbf16>)
    -> (tensor<8x4xf32>, tensor<8x4xbf16>) {
  %0 = fuser.matmul %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %1 = fuser.matmul %c, %d : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xbf16>
  return %0, %1 : tensor<8x4xf32>, tensor<8x4xbf16>
}

// -----

// An activation in the epilogue: the GEMM writes the activation's result.
// CHECK-LABEL: func.func @epilogue
// CHECK-NOT: fuser.launch
// CHECK: fuser.gemm %arg0, %arg1 -> %arg3 bias %arg2 {{.*}} {activation = "gelu_tanh", trans_b}
func.func @epilogue(%x: tensor<8x16xbf16>, %w: tensor<4x16xbf16>, %b: tensor<4xbf16>) -> tensor<8x4xbf16> {
  %0 = fuser.linear %x, %w bias %b : (tensor<8x16xbf16>, tensor<4x16xbf16>, tensor<4xbf16>) -> tensor<8x4xbf16>
  %1 = fuser.gelu %0 approximate = tanh : tensor<8x4xbf16>
  return %1 : tensor<8x4xbf16>
}

// -----

// The gelu keeps its input: the GEMM writes the returned pre-activation
// (aux) beside the activation, no kernel.
// CHECK-LABEL: func.func @keeps_input
// CHECK-NOT: fuser.launch
// CHECK: fuser.gemm %arg0, %arg1 -> %arg3 bias %arg2 aux %arg4 sizes(%c8, %c24, %c16, %c1) ld(%c16, %c16, %c24) batch_strides(%c0, %c0, %c0) {activation = "gelu_tanh", trans_b} : memref<8x16xf32>, memref<24x16xf32>, memref<8x24xf32>, memref<24xf32> aux memref<8x24xf32>
func.func @keeps_input(%x: tensor<8x16xf32>, %w: tensor<24x16xf32>, %b: tensor<24xf32>) -> (tensor<8x24xf32>, tensor<8x24xf32>) {
  %h = fuser.linear %x, %w bias %b : (tensor<8x16xf32>, tensor<24x16xf32>, tensor<24xf32>) -> tensor<8x24xf32>
  %y = fuser.gelu %h approximate = tanh : tensor<8x24xf32>
  return %y, %h : tensor<8x24xf32>, tensor<8x24xf32>
}

// -----

// A linear backward's bias gradient (g summed over its rows) beside its
// weight gradient g^T @ x: one GEMM writes both, the sum into the "bias"
// (bias_grad = "a": the lhs summed over k), and no kernel runs. It never
// multiplies as TF32, so the gradient sums g's own values.
// CHECK-LABEL: func.func @bias_gradient
// CHECK-NOT: fuser.launch
// CHECK: %[[K:.*]] = memref.dim %arg0, %c0
// CHECK: fuser.gemm %arg1, %arg0 -> %arg2 bias %arg3 sizes(%c4, %c9, %[[K]], %c1) ld(%c4, %c9, %c9) batch_strides(%c0, %c0, %c36) {bias_grad = "a", trans_a} : memref<?x4xf32>, memref<?x9xf32>, memref<4x9xf32>, memref<4xf32>
// CHECK-NOT: fuser.launch
// TF32-LABEL: func.func @bias_gradient
// TF32: fuser.gemm
// TF32-NOT: allow_tf32
// TF32-SAME: bias_grad = "a"
func.func @bias_gradient(%x: tensor<?x9xf32>, %g: tensor<?x4xf32>) -> (tensor<4x9xf32>, tensor<4xf32>) {
  %gt = fuser.permute %g perm = [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  %gw = fuser.matmul %gt, %x : (tensor<4x?xf32>, tensor<?x9xf32>) -> tensor<4x9xf32>
  %gb = fuser.sum %g dims = [0] : tensor<?x4xf32> -> tensor<4xf32>
  return %gw, %gb : tensor<4x9xf32>, tensor<4xf32>
}

// -----

// A linear backward of [B, S, H] tensors: the reshapes of the arguments to
// rows are views of their buffers (fuser.buffer_view), no copy kernel, and
// one GEMM writes the weight and bias gradients.
// CHECK-LABEL: func.func @operand_views
// CHECK-NOT: fuser.launch
// CHECK: %[[X:.*]] = fuser.buffer_view %arg0 : memref<2x?x8xbf16> to memref<?x8xbf16>
// CHECK: %[[G:.*]] = fuser.buffer_view %arg1 : memref<2x?x4xbf16> to memref<?x4xbf16>
// CHECK: fuser.gemm %[[G]], %[[X]] -> %arg2 bias %arg3 {{.*}} {bias_grad = "a", trans_a}
// CHECK-NOT: fuser.launch
func.func @operand_views(%x: tensor<2x?x8xbf16>, %g: tensor<2x?x4xbf16>) -> (tensor<4x8xbf16>, tensor<4xbf16>) {
  %x2 = fuser.reshape %x : tensor<2x?x8xbf16> -> tensor<?x8xbf16>
  %g2 = fuser.reshape %g : tensor<2x?x4xbf16> -> tensor<?x4xbf16>
  %gt = fuser.permute %g2 perm = [1, 0] : tensor<?x4xbf16> -> tensor<4x?xbf16>
  %gw = fuser.matmul %gt, %x2 : (tensor<4x?xbf16>, tensor<?x8xbf16>) -> tensor<4x8xbf16>
  %gf = fuser.cast %g : tensor<2x?x4xbf16> to tensor<2x?x4xf32>
  %s = fuser.sum %gf dims = [0, 1] : tensor<2x?x4xf32> -> tensor<4xf32>
  %gb = fuser.cast %s : tensor<4xf32> to tensor<4xbf16>
  return %gw, %gb : tensor<4x8xbf16>, tensor<4xbf16>
}
