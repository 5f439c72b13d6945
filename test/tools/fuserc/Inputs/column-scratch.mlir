// Two column reductions of bf16 (8 lanes, f32 accumulators): a block of
// 1024 threads needs 64 KB of shared memory for its rows' partials.
func.func @sum_and_max(%x: tensor<?x96xbf16>) -> (tensor<96xf32>, tensor<96xf32>) {
  %xf = fuser.cast %x : tensor<?x96xbf16> to tensor<?x96xf32>
  %s = fuser.sum %xf dims = [0] : tensor<?x96xf32> -> tensor<96xf32>
  %m = fuser.max %xf dims = [0] : tensor<?x96xf32> -> tensor<96xf32>
  return %s, %m : tensor<96xf32>, tensor<96xf32>
}
