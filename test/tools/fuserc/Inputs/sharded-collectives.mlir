// Sharded fusions whose partition needs each kind of collective (test/tools/fuserc/sharded.test).
shard.grid @grid(shape = 4)
// softmax over a split dim: gathered first
func.func @gather(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %y = fuser.softmax %xs dim = 1 : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
// sum over the split dim, result split over its only dim: reduce_scatter
func.func @scatter(%x: tensor<8x16xf32>) -> tensor<16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %y = fuser.sum %xs dims = [0] : tensor<8x16xf32> -> tensor<16xf32>
  %ys = shard.shard %y to %s : tensor<16xf32>
  return %ys : tensor<16xf32>
}
// a whole input, a split result: slice
func.func @slice(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %y = fuser.exp %x : tensor<8x16xf32>
  %ys = shard.shard %y to %s : tensor<8x16xf32>
  return %ys : tensor<8x16xf32>
}
