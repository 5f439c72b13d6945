// A matmul whose contraction dim is split over grid axis 0 in the lhs and
// axis 1 in the rhs (sharded-errors.test).
shard.grid @grid(shape = 2x2)
func.func @f(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>) -> tensor<8x16xf32> {
  %sa = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %sb = shard.sharding @grid split_axes = [[1], []] : !shard.sharding
  %as = shard.shard %a to %sa : tensor<8x64xf32>
  %bs = shard.shard %b to %sb : tensor<64x16xf32>
  %c = fuser.matmul %as, %bs : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}
