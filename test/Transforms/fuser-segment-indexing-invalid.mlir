// A table that is a constant has no memory to read at computed positions.
// RUN: fuser-opt %s -split-input-file --fuser-segment -verify-diagnostics

func.func @gather_constant(%i: tensor<4xi64>) -> tensor<4xf32> {
  %c = fuser.constant 1.0 : tensor<10xf32>
  // expected-error @+1 {{'fuser.gather' op reads a constant or an iota at positions computed from data; pass the table as an argument of the fusion}}
  %g = fuser.gather %c, %i dim = 0 : tensor<10xf32>, tensor<4xi64> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A scatter's source must be in memory: a constant is an error that says
// what to do.
func.func @scatter_constant_source(%x: tensor<10xf32>, %i: tensor<4xi64>) -> tensor<10xf32> {
  %one = fuser.constant 1.0 : tensor<4xf32>
  // expected-error @+1 {{'fuser.scatter_add' op reads its source from memory, and it is a constant or an iota; pass it as an argument of the fusion (or broadcast a rank-0 constant, which a kernel writes)}}
  %0 = fuser.scatter_add %x, %i, %one dim = 0 : tensor<10xf32>, tensor<4xi64>, tensor<4xf32>
  return %0 : tensor<10xf32>
}
