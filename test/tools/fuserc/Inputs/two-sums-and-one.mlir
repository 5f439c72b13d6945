// Two fusions compiled together: @two_sums has two reduction segments,
// @single one. The schedule option's KEY[SEGMENT] applies to each fusion
// it fits.
func.func @two_sums(%x: tensor<?x512xf32>, %y: tensor<512x?xf32>) -> (tensor<?xf32>, tensor<512xf32>, tensor<?x512xf32>) {
  %e = fuser.exp %x : tensor<?x512xf32>
  %s = fuser.sum %e dims = [1] : tensor<?x512xf32> -> tensor<?xf32>
  %t = fuser.sum %y dims = [1] : tensor<512x?xf32> -> tensor<512xf32>
  %tb = fuser.broadcast %t dims = [1] : tensor<512xf32> -> tensor<?x512xf32>
  %z = fuser.mul %x, %tb : tensor<?x512xf32>
  return %s, %t, %z : tensor<?xf32>, tensor<512xf32>, tensor<?x512xf32>
}

func.func @single(%x: tensor<64x512xf32>) -> tensor<64xf32> {
  %s = fuser.sum %x dims = [1] : tensor<64x512xf32> -> tensor<64xf32>
  return %s : tensor<64xf32>
}
