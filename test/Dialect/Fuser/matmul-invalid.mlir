// Every verifier message of fuser.matmul and fuser.linear.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

func.func @rank0(%a: tensor<f32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'fuser.matmul' op operands must be at least 1-D, got [] and [4] (torch.matmul; a scalar product is fuser.mul)}}
  %0 = fuser.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @dtypes(%a: tensor<4x8xf32>, %b: tensor<8x2xbf16>) {
  // expected-error @+1 {{'fuser.matmul' op operand element types 'f32' and 'bf16' differ; insert a fuser.cast (torch.matmul needs one dtype)}}
  %0 = fuser.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xbf16>) -> tensor<4x2xf32>
  return
}

// -----

func.func @contraction(%a: tensor<4x8xf32>, %b: tensor<7x2xf32>) {
  // expected-error @+1 {{'fuser.matmul' op contracts [4, 8] with [7, 2]: the lhs's last dim (8) differs from the rhs's second to last dim (7)}}
  %0 = fuser.matmul %a, %b : (tensor<4x8xf32>, tensor<7x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @contraction_vector(%a: tensor<4x8xf32>, %b: tensor<7xf32>) {
  // expected-error @+1 {{the lhs's last dim (8) differs from the rhs's only dim (7)}}
  %0 = fuser.matmul %a, %b : (tensor<4x8xf32>, tensor<7xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @batch(%a: tensor<3x4x8xf32>, %b: tensor<5x8x2xf32>) {
  // expected-error @+1 {{'fuser.matmul' op batch dims of [3, 4, 8] and [5, 8, 2] do not broadcast: 3 against 5}}
  %0 = fuser.matmul %a, %b : (tensor<3x4x8xf32>, tensor<5x8x2xf32>) -> tensor<3x4x2xf32>
  return
}

// -----

func.func @result(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'fuser.matmul' op result type 'tensor<4x3xf32>' does not match the expected 'tensor<4x2xf32>'}}
  %0 = fuser.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @int(%a: tensor<4x8xi32>, %b: tensor<8x2xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of f16, bf16, f32 or f64 (fp8: cast to f32 first), but got 'tensor<4x8xi32>'}}
  %0 = fuser.matmul %a, %b : (tensor<4x8xi32>, tensor<8x2xi32>) -> tensor<4x2xi32>
  return
}

// -----

func.func @linear_rank0(%x: tensor<f32>, %w: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.linear' op input must be at least 1-D ([..., in])}}
  %0 = fuser.linear %x, %w : (tensor<f32>, tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @linear_weight(%x: tensor<2x8xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{'fuser.linear' op weight must be 2-D ([out, in]), got [8] (a 1-D weight is fuser.matmul of the input and it)}}
  %0 = fuser.linear %x, %w : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @linear_dtypes(%x: tensor<2x8xf32>, %w: tensor<4x8xf16>) {
  // expected-error @+1 {{'fuser.linear' op input and weight element types 'f32' and 'f16' differ; insert a fuser.cast}}
  %0 = fuser.linear %x, %w : (tensor<2x8xf32>, tensor<4x8xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @linear_bias_dtype(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{'fuser.linear' op bias element type 'bf16' differs from the input's 'f32'; insert a fuser.cast}}
  %0 = fuser.linear %x, %w bias %b : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xbf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @linear_features(%x: tensor<2x8xf32>, %w: tensor<4x7xf32>) {
  // expected-error @+1 {{'fuser.linear' op input [2, 8] has 8 features but weight [4, 7] takes 7}}
  %0 = fuser.linear %x, %w : (tensor<2x8xf32>, tensor<4x7xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'fuser.linear' op bias must be 1-D of the weight's 4 outputs, got [5]}}
  %0 = fuser.linear %x, %w bias %b : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<5xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_types(%a: memref<4x8xf32>, %b: memref<8x2xf16>, %d: memref<4x2xf32>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op operand element types 'f32' and 'f16' differ}}
  fuser.gemm %a, %b -> %d sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) : memref<4x8xf32>, memref<8x2xf16>, memref<4x2xf32>
  return
}

// -----

func.func @gemm_int(%a: memref<4x8xi32>, %b: memref<8x2xi32>, %d: memref<4x2xi32>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op operands must be f16, bf16, f32 or f64, got 'i32'}}
  fuser.gemm %a, %b -> %d sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) : memref<4x8xi32>, memref<8x2xi32>, memref<4x2xi32>
  return
}

// -----

func.func @gemm_result(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %d: memref<4x2xf64>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op result element type 'f64' cannot hold a product of 'f32' (the operands' type, or f32 for f16 and bf16 operands)}}
  fuser.gemm %a, %b -> %d sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) : memref<4x8xf32>, memref<8x2xf32>, memref<4x2xf64>
  return
}

// -----

func.func @gemm_bias(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %d: memref<4x2xf32>, %bias: memref<2xf16>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op bias element type 'f16' differs from the result's 'f32'}}
  fuser.gemm %a, %b -> %d bias %bias sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) : memref<4x8xf32>, memref<8x2xf32>, memref<4x2xf32>, memref<2xf16>
  return
}

// -----

func.func @gemm_tf32(%a: memref<4x8xbf16>, %b: memref<8x2xbf16>, %d: memref<4x2xbf16>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op allow_tf32 applies to f32 operands only, got 'bf16'}}
  fuser.gemm %a, %b -> %d sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) {allow_tf32} : memref<4x8xbf16>, memref<8x2xbf16>, memref<4x2xbf16>
  return
}

// -----

func.func @gemm_activation(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %d: memref<4x2xf32>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op activation must be relu or gelu_tanh, got 'silu'}}
  fuser.gemm %a, %b -> %d sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) {activation = "silu"} : memref<4x8xf32>, memref<8x2xf32>, memref<4x2xf32>
  return
}

// -----

func.func @gemm_aux_without_gelu(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %d: memref<4x2xf32>, %h: memref<4x2xf32>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op aux (the activation's input) needs activation gelu_tanh}}
  fuser.gemm %a, %b -> %d aux %h sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) {activation = "relu"} : memref<4x8xf32>, memref<8x2xf32>, memref<4x2xf32> aux memref<4x2xf32>
  return
}

// -----

func.func @gemm_aux_type(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %d: memref<4x2xf32>, %h: memref<4x2xf16>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op aux element type 'f16' differs from the result's 'f32'}}
  fuser.gemm %a, %b -> %d aux %h sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) {activation = "gelu_tanh"} : memref<4x8xf32>, memref<8x2xf32>, memref<4x2xf32> aux memref<4x2xf16>
  return
}

// -----

func.func @gemm_bias_grad_kind(%a: memref<8x4xf32>, %b: memref<8x2xf32>, %d: memref<4x2xf32>, %g: memref<4xf32>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op bias_grad must be "a" or "b" (the operand whose sum over k it writes), got 'c'}}
  fuser.gemm %a, %b -> %d bias %g sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) {bias_grad = "c", trans_a} : memref<8x4xf32>, memref<8x2xf32>, memref<4x2xf32>, memref<4xf32>
  return
}

// -----

func.func @gemm_bias_grad_without_bias(%a: memref<8x4xf32>, %b: memref<8x2xf32>, %d: memref<4x2xf32>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op bias_grad writes a bias gradient, but there is no bias buffer}}
  fuser.gemm %a, %b -> %d sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) {bias_grad = "a", trans_a} : memref<8x4xf32>, memref<8x2xf32>, memref<4x2xf32>
  return
}

// -----

func.func @gemm_bias_grad_with_activation(%a: memref<8x4xf32>, %b: memref<8x2xf32>, %d: memref<4x2xf32>, %g: memref<4xf32>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op bias_grad stands alone: no activation and no aux beside it}}
  fuser.gemm %a, %b -> %d bias %g sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) {activation = "relu", bias_grad = "a", trans_a} : memref<8x4xf32>, memref<8x2xf32>, memref<4x2xf32>, memref<4xf32>
  return
}

// -----

func.func @gemm_bias_grad_rank(%a: memref<8x4xf32>, %b: memref<8x2xf32>, %d: memref<4x2xf32>, %g: memref<4x1xf32>) {
  %c = arith.constant 1 : index
  // expected-error @+1 {{'fuser.gemm' op bias_grad writes a vector; its buffer must have rank 1}}
  fuser.gemm %a, %b -> %d bias %g sizes(%c, %c, %c, %c) ld(%c, %c, %c) batch_strides(%c, %c, %c) {bias_grad = "a", trans_a} : memref<8x4xf32>, memref<8x2xf32>, memref<4x2xf32>, memref<4x1xf32>
  return
}
