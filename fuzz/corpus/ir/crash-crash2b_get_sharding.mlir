shard.grid @grid(shape = 2)
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8xf32>
  %t = shard.get_sharding %xs : tensor<8xf32> -> !shard.sharding
  %ys = shard.shard %xs to %t : tensor<8xf32>
  return %ys : tensor<8xf32>
}
