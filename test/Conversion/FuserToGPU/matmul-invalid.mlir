// RUN: fuser-opt %s -split-input-file --fuser-decompose --fuser-segment --fuser-emit-kernels -verify-diagnostics

func.func @view_operand(%x: tensor<64x48xf32> {fuser.strides = strided<[1, 64]>}, %w: tensor<48x8xf32>) -> tensor<64x8xf32> {
  // expected-error @+1 {{'fuser.matmul' op reads a view argument (fuser.strides); a library call takes dense row-major operands only for now: pass it dense}}
  %0 = fuser.matmul %x, %w : (tensor<64x48xf32>, tensor<48x8xf32>) -> tensor<64x8xf32>
  return %0 : tensor<64x8xf32>
}
