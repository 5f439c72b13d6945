shard.grid @grid(shape = 4294967296x4294967296)
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8xf32>
  return %xs : tensor<8xf32>
}
