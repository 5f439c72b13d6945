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
