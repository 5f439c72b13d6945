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

// -----

// A scatter_add source takes its index's size only where nothing else reads
// it: a sum of it sees its whole extent, which the index only bounds.
func.func @source_read_elsewhere(%self: tensor<?xf32>, %i: tensor<?xi64>, %c: tensor<f32>) -> (tensor<?xf32>, tensor<f32>) {
  // expected-error @+1 {{cannot determine the size of dim 0 of 'fuser.broadcast'}}
  %b = fuser.broadcast %c dims = [] : tensor<f32> -> tensor<?xf32>
  %o = fuser.scatter_add %self, %i, %b dim = 0 : tensor<?xf32>, tensor<?xi64>, tensor<?xf32>
  %s = fuser.sum %b dims = [0] : tensor<?xf32> -> tensor<f32>
  return %o, %s : tensor<?xf32>, tensor<f32>
}

// -----

// A statement of sizes that is not over the fusion's dynamic argument dims.
func.func @stated_wrong_symbols(%x: tensor<4xf32>, %z: tensor<?x?xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{'fuser.broadcast' op 'fuser.sizes' must map the fusion's 2 dynamic argument dims (symbols) to 2 sizes, got affine_map<()[s0] -> (4, s0)>}}
  %b = fuser.broadcast %x dims = [0] {fuser.sizes = affine_map<()[s0] -> (4, s0)>} : tensor<4xf32> -> tensor<4x?xf32>
  return %b : tensor<4x?xf32>
}
