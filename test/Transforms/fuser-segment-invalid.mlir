// fuser-segment takes fusions of fuser ops: anything else is an error at
// the op, and a composite must be expanded first.
// RUN: fuser-opt %s -split-input-file --fuser-segment -verify-diagnostics

func.func @arith_on_tensors(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'arith.addf' op is not supported in a fusion body}}
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @composite(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'fuser.softmax' op must be expanded by fuser-decompose first}}
  %0 = fuser.softmax %x dim = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
