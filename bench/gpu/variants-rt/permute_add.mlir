// Schedule variants (transpose.*): a permute of the inner two dims added to
// a tensor of the output's layout, any batch.
func.func @permute_add(%x: tensor<?x512x768xf32>, %y: tensor<?x768x512xf32>) -> tensor<?x768x512xf32> {
  %t = fuser.permute %x perm = [0, 2, 1] : tensor<?x512x768xf32> -> tensor<?x768x512xf32>
  %0 = fuser.add %t, %y : tensor<?x768x512xf32>
  return %0 : tensor<?x768x512xf32>
}
