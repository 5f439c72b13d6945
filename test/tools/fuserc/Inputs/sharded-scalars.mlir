// Sharded fusions with values computed from rank-0 values alone, which no
// annotated value reaches (test/tools/fuserc/sharded-scalars.test).
shard.grid @grid(shape = 2)
// A loss: a split tensor summed to a scalar, then ops along dim 0 of it.
func.func @loss(%x: tensor<8x16xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %y = fuser.sum %xs dims = [0, 1] : tensor<8x16xf32> -> tensor<f32>
  %z = fuser.mean %y dims = [0] : tensor<f32> -> tensor<f32>
  %c = fuser.cumsum %y dim = 0 : tensor<f32>
  %sm = fuser.log_softmax %z dim = 0 : tensor<f32>
  return %z, %c, %sm : tensor<f32>, tensor<f32>, tensor<f32>
}
// A scalar argument reshaped to [1] and scanned.
func.func @reshaped(%x: tensor<8x16xf32>, %y: tensor<f32>) -> (tensor<8x16xf32>, tensor<1xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %e = fuser.exp %xs : tensor<8x16xf32>
  %r = fuser.reshape %y : tensor<f32> -> tensor<1xf32>
  %c = fuser.cumsum %r dim = 0 : tensor<1xf32>
  return %e, %c : tensor<8x16xf32>, tensor<1xf32>
}
// A scalar argument broadcast.
func.func @broadcast(%x: tensor<8x16xf32>, %y: tensor<f32>) -> (tensor<8x16xf32>, tensor<4xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %e = fuser.exp %xs : tensor<8x16xf32>
  %r = fuser.broadcast %y dims = [] : tensor<f32> -> tensor<4xf32>
  %c = fuser.exp %r : tensor<4xf32>
  return %e, %c : tensor<8x16xf32>, tensor<4xf32>
}
// An argument and an iota that meet no annotated value.
func.func @unreached(%x: tensor<8x16xf32>, %w: tensor<4xf32>) -> (tensor<8x16xf32>, tensor<4xf32>, tensor<4xi64>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %e = fuser.exp %xs : tensor<8x16xf32>
  %c = fuser.cumsum %w dim = 0 : tensor<4xf32>
  %i = fuser.iota dim = 0 : tensor<4xi64>
  return %e, %c, %i : tensor<8x16xf32>, tensor<4xf32>, tensor<4xi64>
}
// A value split by what it meets later (exp(w) times a split x) read along
// the split dim by an op the forward propagation met first (refused:
// "needs loop 1 whole"); a second propagation gathers it there.
func.func @sibling_softmax(%x: tensor<8x16xf32>, %w: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %e = fuser.exp %w : tensor<8x16xf32>
  %y = fuser.mul %xs, %e : tensor<8x16xf32>
  %cs = fuser.softmax %e dim = 1 : tensor<8x16xf32>
  return %y, %cs : tensor<8x16xf32>, tensor<8x16xf32>
}
func.func @sibling_cumsum(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %i = fuser.iota dim = 1 : tensor<8x16xi64>
  %f = fuser.cast %i : tensor<8x16xi64> to tensor<8x16xf32>
  %y = fuser.mul %xs, %f : tensor<8x16xf32>
  %cs = fuser.cumsum %f dim = 1 : tensor<8x16xf32>
  return %y, %cs : tensor<8x16xf32>, tensor<8x16xf32>
}