// Sum over the leading dim (an outer reduction): threads run along the kept
// inner dim so that the reads coalesce.
func.func @column_sum(%x: tensor<65536x1024xf32>) -> tensor<1024xf32> {
  %0 = fuser.sum %x dims = [0] : tensor<65536x1024xf32> -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
