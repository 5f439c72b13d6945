// A Megatron tensor-parallel MLP block over a grid of devices: the first
// linear split by its output features (column parallel), gelu on each
// device's columns, the second linear split by its input features (row
// parallel), whose partial products one all_reduce sums; its bias and the
// residual are added once, after it.
//   fuserc run examples/sharded/tensor_parallel_mlp.mlir --random 1 --ranks 2
shard.grid @grid(shape = 2)
func.func @tensor_parallel_mlp(%x: tensor<16x64xbf16>, %w1: tensor<256x64xbf16>, %b1: tensor<256xbf16>,
                               %w2: tensor<64x256xbf16>, %b2: tensor<64xbf16>) -> tensor<16x64xbf16> {
  %col = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %w1s = shard.shard %w1 to %col : tensor<256x64xbf16>
  %b1s = shard.shard %b1 to %col : tensor<256xbf16>
  %row = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %w2s = shard.shard %w2 to %row : tensor<64x256xbf16>
  %h = fuser.linear %x, %w1s bias %b1s : (tensor<16x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>) -> tensor<16x256xbf16>
  %g = fuser.gelu %h approximate = "tanh" : tensor<16x256xbf16>
  %y = fuser.linear %g, %w2s bias %b2 : (tensor<16x256xbf16>, tensor<64x256xbf16>, tensor<64xbf16>) -> tensor<16x64xbf16>
  %r = fuser.add %y, %x : tensor<16x64xbf16>, tensor<16x64xbf16>
  return %r : tensor<16x64xbf16>
}
