// Data parallel: each device holds its part of the batch, computes its
// partial weight gradient (a sum over its rows), one all_reduce sums the
// parts, and every device applies the same SGD update to the whole weight.
//   fuserc run examples/sharded/data_parallel_sgd.mlir --random 1 --ranks 2
shard.grid @grid(shape = 2)
func.func @data_parallel_sgd(%x: tensor<64x128xf32>, %dy: tensor<64x128xf32>, %w: tensor<128xf32>,
                             %lr: tensor<f32>) -> tensor<128xf32> {
  %batch = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %batch : tensor<64x128xf32>
  %dys = shard.shard %dy to %batch : tensor<64x128xf32>
  %m = fuser.mul %dys, %xs : tensor<64x128xf32>, tensor<64x128xf32>
  %g = fuser.sum %m dims = [0] : tensor<64x128xf32> -> tensor<128xf32>
  %step = fuser.mul %g, %lr : tensor<128xf32>, tensor<f32>
  %new = fuser.sub %w, %step : tensor<128xf32>, tensor<128xf32>
  return %new : tensor<128xf32>
}
