// What the partition cannot do is a diagnostic, never a crash.
// RUN: fuser-opt %s --fuser-partition --verify-diagnostics

shard.grid @grid(shape = 2x2)

// A softmax needs its line whole; upstream's resharding cannot gather a dim
// split over two axes at once (it left the operand null, and cloning the
// op crashed).
func.func @two_axes_line(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x3xf32>
  // expected-error @+1 {{'fuser.softmax' op cannot take operand 0 split as it is: the partition cannot reshard it to the split this op needs (for one, a dim split over several grid axes at once cannot be gathered); split that dim over one axis}}
  %0 = fuser.softmax %xs dim = 0 : tensor<8x3xf32>
  %r = shard.shard %0 to %s : tensor<8x3xf32>
  return %r : tensor<8x3xf32>
}

// -----

// A sharding that is not a shard.sharding op, read by an op: upstream's
// propagation dereferenced null before fuser's check after it ran (found by
// review); the annotations as written are checked first.
func.func @sharding_argument(%x: tensor<8xf32>, %s: !shard.sharding) -> tensor<8xf32> {
  // expected-error @+1 {{the sharding of a shard.shard must be a shard.sharding op of the same function (fuser reads annotations as written)}}
  %xs = shard.shard %x to %s : tensor<8xf32>
  %e = fuser.exp %xs : tensor<8xf32>
  return %e : tensor<8xf32>
}
