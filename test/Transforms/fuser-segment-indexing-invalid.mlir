// A table that is a constant has no memory to read at computed positions.
// RUN: fuser-opt %s --fuser-segment -verify-diagnostics

func.func @gather_constant(%i: tensor<4xi64>) -> tensor<4xf32> {
  %c = fuser.constant 1.0 : tensor<10xf32>
  // expected-error @+1 {{'fuser.gather' op reads a constant or an iota at positions computed from data; pass the table as an argument of the fusion}}
  %g = fuser.gather %c, %i dim = 0 : tensor<10xf32>, tensor<4xi64> -> tensor<4xf32>
  return %g : tensor<4xf32>
}
