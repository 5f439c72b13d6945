// Transpose of the two inner dims plus an add: both the reads of x and the
// writes of the result coalesce through a shared-memory tile.
func.func @permute_add(%x: tensor<64x512x768xf32>, %y: tensor<64x768x512xf32>) -> tensor<64x768x512xf32> {
  %t = fuser.permute %x perm = [0, 2, 1] : tensor<64x512x768xf32> -> tensor<64x768x512xf32>
  %0 = fuser.add %t, %y : tensor<64x768x512xf32>
  return %0 : tensor<64x768x512xf32>
}
