// Each column divided by its sum: the column sums must be complete before
// any element is divided, so this needs two kernels (an outer reduction, then
// a pointwise kernel that reads the sums in place), no more.
func.func @two_kernels(%x: tensor<1024x4096xf32>) -> tensor<1024x4096xf32> {
  %sum = fuser.sum %x dims = [0] : tensor<1024x4096xf32> -> tensor<4096xf32>
  %sb = fuser.broadcast %sum dims = [1] : tensor<4096xf32> -> tensor<1024x4096xf32>
  %0 = fuser.div %x, %sb : tensor<1024x4096xf32>
  return %0 : tensor<1024x4096xf32>
}
