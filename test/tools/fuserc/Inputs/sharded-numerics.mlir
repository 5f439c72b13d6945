// Reductions over a split dim whose combine must not lose what one device
// would keep (sharded.test): a NaN only one device holds, under max, min
// and a max whose result is split (a reduce_scatter); half-precision sums
// whose parts overflow the half type.
shard.grid @grid(shape = 4)
func.func @max_min(%x: tensor<8x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x4xf32>
  %hi = fuser.max %xs dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
  %lo = fuser.min %xs dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
  return %hi, %lo : tensor<4xf32>, tensor<4xf32>
}
func.func @max_scattered(%x: tensor<8x4xf32>) -> tensor<4xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x4xf32>
  %hi = fuser.max %xs dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
  %his = shard.shard %hi to %s : tensor<4xf32>
  return %his : tensor<4xf32>
}
func.func @half_sums(%x: tensor<8x2xf16>, %y: tensor<8x2xbf16>) -> (tensor<2xf16>, tensor<2xbf16>, tensor<2xf16>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x2xf16>
  %ys = shard.shard %y to %s : tensor<8x2xbf16>
  %a = fuser.sum %xs dims = [0] : tensor<8x2xf16> -> tensor<2xf16>
  %b = fuser.sum %ys dims = [0] : tensor<8x2xbf16> -> tensor<2xbf16>
  %m = fuser.mean %xs dims = [0] : tensor<8x2xf16> -> tensor<2xf16>
  return %a, %b, %m : tensor<2xf16>, tensor<2xbf16>, tensor<2xf16>
}
