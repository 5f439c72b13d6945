// A collective on a grid with an axis of size 0: upstream's verifier
// divides by it, so fuserc checks grids before verifying (found by review).
shard.grid @grid(shape = 0)
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = shard.all_slice %x on @grid grid_axes = [0] slice_axis = 0 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
