// Negative pad amounts crop (test/tools/fuserc/pad-crop.test).
func.func @crop(%x: tensor<?x4xf32>) -> tensor<?x5xf32> {
  %v = fuser.constant 7.0 : tensor<f32>
  %0 = fuser.pad %x, %v low = [-2, 1] high = [1, 0] : tensor<?x4xf32>, tensor<f32> -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}
