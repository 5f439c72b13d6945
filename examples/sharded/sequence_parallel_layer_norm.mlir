// Sequence parallel (Megatron): the activations are split along the
// sequence, layer_norm runs on each device's rows with no communication,
// and an all_gather joins the rows for the tensor-parallel linear that
// follows (its weight split by output features, its output split by
// columns).
//   fuserc run examples/sharded/sequence_parallel_layer_norm.mlir --random 1 --ranks 2
shard.grid @grid(shape = 2)
func.func @sequence_parallel_layer_norm(%x: tensor<32x64xbf16>, %gamma: tensor<64xbf16>,
                                        %beta: tensor<64xbf16>, %w: tensor<128x64xbf16>)
    -> (tensor<32x64xbf16>, tensor<32x128xbf16>) {
  %seq = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %seq : tensor<32x64xbf16>
  %y, %mean, %rstd = fuser.layer_norm %xs weight %gamma bias %beta dims = [1] eps = 1.0e-5
      : (tensor<32x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> (tensor<32x64xbf16>, tensor<32x1xf32>, tensor<32x1xf32>)
  %ys = shard.shard %y to %seq : tensor<32x64xbf16>
  %whole = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %yw = shard.shard %ys to %whole annotate_for_users : tensor<32x64xbf16>
  %col = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %ws = shard.shard %w to %col : tensor<128x64xbf16>
  %h = fuser.linear %yw, %ws : (tensor<32x64xbf16>, tensor<128x64xbf16>) -> tensor<32x128xbf16>
  %cols = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %hs = shard.shard %h to %cols : tensor<32x128xbf16>
  return %ys, %hs : tensor<32x64xbf16>, tensor<32x128xbf16>
}
