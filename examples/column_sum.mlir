// Sum over the leading dim (an outer reduction): threads run along the kept
// inner dim so that the reads coalesce. 1024 columns are 8 tiles, too few
// blocks for the machine, so the 65536 rows split across 33 blocks along y;
// the last block of each tile to finish (an atomic counter) combines the
// partials in split order: one launch (docs/schedulers.md).
func.func @column_sum(%x: tensor<65536x1024xf32>) -> tensor<1024xf32> {
  %0 = fuser.sum %x dims = [0] : tensor<65536x1024xf32> -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
