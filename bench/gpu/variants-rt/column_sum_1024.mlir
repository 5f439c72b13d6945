// Schedule variants (reduction.column_*): a column sum over rows of 1024
// f32 (256 units of 4 lanes). The block's rows of threads decide which
// positions of a column each adds, so a variant's sums may differ from the
// default's in their last bits (timed with --reordered-sums-ok).
func.func @column_sum_1024(%x: tensor<?x1024xf32>) -> tensor<1024xf32> {
  %0 = fuser.sum %x dims = [0] : tensor<?x1024xf32> -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
