shard.grid @grid(shape = 0)
func.func @f(%x: tensor<64x128xf32>) -> tensor<128xf32> {
  %batch = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %batch : tensor<64x128xf32>
  %g = fuser.sum %xs dims = [0] : tensor<64x128xf32> -> tensor<128xf32>
  return %g : tensor<128xf32>
}
