shard.grid @grid(shape = 2)

func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %s = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<f32>
  %e = fuser.exp %xs : tensor<f32>
  return %e : tensor<f32>
}
