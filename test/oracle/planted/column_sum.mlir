// A split column sum: 96 columns make 3 column tiles (of 32 threads), so
// the 2048 rows split across blocks along y; each block writes a row of
// partials and the last block of each tile to arrive (an atomic counter)
// combines them, in split order, in the same launch.
func.func @column_sum(%x: tensor<2048x96xf32>) -> tensor<96xf32> {
  %s = fuser.sum %x dims = [0] : tensor<2048x96xf32> -> tensor<96xf32>
  return %s : tensor<96xf32>
}
