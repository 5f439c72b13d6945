// A Megatron sequence-parallel transformer MLP: the activations are split
// along the sequence, layer_norm runs on each device's rows with no
// communication, an all_gather joins the rows for the column-parallel
// linear, gelu runs on each device's columns, and the row-parallel linear's
// partial products are summed by a reduce_scatter that leaves each device
// its rows again, where the residual is added.
//   fuserc run examples/sharded/sequence_parallel_layer_norm.mlir --random 1 --ranks 2
shard.grid @grid(shape = 2)
func.func @sequence_parallel_layer_norm(%x: tensor<32x64xbf16>, %gamma: tensor<64xbf16>,
                                        %beta: tensor<64xbf16>, %w1: tensor<128x64xbf16>,
                                        %w2: tensor<64x128xbf16>)
    -> (tensor<32x64xbf16>, tensor<32x64xbf16>) {
  %seq = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %seq : tensor<32x64xbf16>
  %y, %mean, %rstd = fuser.layer_norm %xs weight %gamma bias %beta dims = [1] eps = 1.0e-5
      : (tensor<32x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> (tensor<32x64xbf16>, tensor<32x1xf32>, tensor<32x1xf32>)
  %ys = shard.shard %y to %seq : tensor<32x64xbf16>
  // The linears read whole rows: the sequence is gathered.
  %whole = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %yw = shard.shard %ys to %whole annotate_for_users : tensor<32x64xbf16>
  %col = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %w1s = shard.shard %w1 to %col : tensor<128x64xbf16>
  %h = fuser.linear %yw, %w1s : (tensor<32x64xbf16>, tensor<128x64xbf16>) -> tensor<32x128xbf16>
  %g = fuser.gelu %h approximate = "tanh" : tensor<32x128xbf16>
  %row = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %w2s = shard.shard %w2 to %row : tensor<64x128xbf16>
  %o = fuser.linear %g, %w2s : (tensor<32x128xbf16>, tensor<64x128xbf16>) -> tensor<32x64xbf16>
  // The sum of the partial products, then each device's rows of it: one
  // reduce_scatter.
  %ow = shard.shard %o to %whole : tensor<32x64xbf16>
  %os = shard.shard %ow to %seq annotate_for_users : tensor<32x64xbf16>
  %r = fuser.add %os, %xs : tensor<32x64xbf16>, tensor<32x64xbf16>
  %rs = shard.shard %r to %seq : tensor<32x64xbf16>
  return %ys, %rs : tensor<32x64xbf16>, tensor<32x64xbf16>
}
