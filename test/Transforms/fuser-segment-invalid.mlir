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

// -----

func.func @along_dim_of_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @below {{'fuser.cumsum' op along dim 0 of a rank-0 tensor must be lifted to a [1] tensor by fuser-lift-rank-zero (fuser-decompose runs it) first}}
  %0 = fuser.cumsum %x dim = 0 : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A scalar result is checked before its shape is read (this once ran away,
// reading an f32 as a tensor type).
func.func @scalar_result(%x: tensor<4xf32>) -> f32 {
  // expected-error @below {{'arith.constant' op is not supported in a fusion body: result 0 is 'f32', not a ranked tensor (a scalar is a rank-0 tensor: fuser.constant)}}
  %0 = arith.constant 1.0 : f32
  return %0 : f32
}

// -----

func.func @vector_result(%x: tensor<4xf32>) -> vector<4xf32> {
  // expected-error @below {{'arith.constant' op is not supported in a fusion body: result 0 is 'vector<4xf32>', not a ranked tensor}}
  %0 = arith.constant dense<1.0> : vector<4xf32>
  return %0 : vector<4xf32>
}
