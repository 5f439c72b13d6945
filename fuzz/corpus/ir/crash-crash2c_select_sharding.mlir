shard.grid @grid(shape = 2)
func.func @f(%x: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  %a = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %b = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %s = arith.select %c, %a, %b : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8xf32>
  %y = fuser.exp %xs : tensor<8xf32>
  return %y : tensor<8xf32>
}
