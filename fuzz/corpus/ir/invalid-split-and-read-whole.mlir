shard.grid @grid(shape = 2)
func.func @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  %y = fuser.softmax %xs dim = 0 : tensor<8x16xf32>
  %z = fuser.softmax %x dim = 0 : tensor<8x16xf32>
  %r = fuser.add %y, %z : tensor<8x16xf32>, tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
