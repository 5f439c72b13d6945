// var_mean of slices holding values of 2^64 and more (var-mean-huge.test):
// along rows (a warp per row, lanes that hold no element) and along
// columns.
func.func @rows(%x: tensor<4x4xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  %v, %m = fuser.var_mean %x dims = [1] correction = 1 keepdim = true : tensor<4x4xf32> -> tensor<4x1xf32>, tensor<4x1xf32>
  return %v, %m : tensor<4x1xf32>, tensor<4x1xf32>
}

func.func @columns(%x: tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %v, %m = fuser.var_mean %x dims = [0] correction = 0 keepdim = true : tensor<2x3xf32> -> tensor<1x3xf32>, tensor<1x3xf32>
  return %v, %m : tensor<1x3xf32>, tensor<1x3xf32>
}
