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
// The max whole, then split for its user: partition's all_reduce and
// all_slice, one reduce_scatter (a result annotated split alone is planned
// as an all_to_all of the input and a local max instead).
func.func @max_scattered(%x: tensor<8x4xf32>) -> tensor<4xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %w = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x4xf32>
  %hi = fuser.max %xs dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
  %hw = shard.shard %hi to %w : tensor<4xf32>
  %hs = shard.shard %hw to %s annotate_for_users : tensor<4xf32>
  %r = fuser.neg %hs : tensor<4xf32>
  %rs = shard.shard %r to %s : tensor<4xf32>
  return %rs : tensor<4xf32>
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
// An f16 sum whole, then split for its user: one reduce_scatter in f32 (the
// cast to f16 after it rounds only the device's part), not an all_reduce,
// a cast and a slice.
func.func @half_sum_scattered(%x: tensor<8x4xf16>) -> tensor<4xf16> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %w = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x4xf16>
  %t = fuser.sum %xs dims = [0] : tensor<8x4xf16> -> tensor<4xf16>
  %tw = shard.shard %t to %w : tensor<4xf16>
  %ts = shard.shard %tw to %s annotate_for_users : tensor<4xf16>
  %r = fuser.neg %ts : tensor<4xf16>
  %rs = shard.shard %r to %s : tensor<4xf16>
  return %rs : tensor<4xf16>
}
