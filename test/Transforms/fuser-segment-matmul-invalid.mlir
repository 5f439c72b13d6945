// RUN: fuser-opt %s -split-input-file --fuser-segment -verify-diagnostics

func.func @constant_operand(%a: tensor<8x16xf32>) -> tensor<8x4xf32> {
  %c = fuser.constant 1.0 : tensor<16x4xf32>
  // expected-error @+1 {{'fuser.matmul' op reads its operands from memory (a library call), and operand 1 is a constant or an iota; pass it as an argument of the fusion}}
  %0 = fuser.matmul %a, %c : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
