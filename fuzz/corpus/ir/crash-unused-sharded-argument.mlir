shard.grid @grid(shape = 2)
func.func @f(%x: tensor<8x16xf32>, %r: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %0 = fuser.softmax %xs dim = 1 : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
