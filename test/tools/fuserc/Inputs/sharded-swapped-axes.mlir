// An add of two operands split over a 2x2 grid with the axes swapped
// (sharded-errors.test).
shard.grid @grid(shape = 2x2)
func.func @f(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %sa = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %sb = shard.sharding @grid split_axes = [[1], [0]] : !shard.sharding
  %as = shard.shard %a to %sa : tensor<8x64xf32>
  %bs = shard.shard %b to %sb : tensor<8x64xf32>
  %c = fuser.add %as, %bs : tensor<8x64xf32>
  return %c : tensor<8x64xf32>
}
