// A '?' dim that nothing sizes: the error names the rule that could have
// (lib/Analysis/ShapeAnalysis.cpp, docs/dialect.md).
// RUN: fuser-opt %s -split-input-file --fuser-segment -verify-diagnostics

// A broadcast's new dim combined with nothing.
func.func @broadcast_alone(%x: tensor<4xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{cannot determine the size of dim 1 of 'fuser.broadcast' from the fusion's arguments; tie it to an argument's dim (a broadcast, constant or iota takes a '?' dim's size from the tensors it combines with, and nothing combines with this one: docs/dialect.md)}}
  %b = fuser.broadcast %x dims = [0] : tensor<4xf32> -> tensor<4x?xf32>
  return %b : tensor<4x?xf32>
}

// -----

func.func @constant_alone() -> tensor<?xf32> {
  // expected-error @+1 {{cannot determine the size of dim 0 of 'fuser.constant' from the fusion's arguments; tie it to an argument's dim (a broadcast, constant or iota takes}}
  %c = fuser.constant 1.0 : tensor<?xf32>
  return %c : tensor<?xf32>
}
