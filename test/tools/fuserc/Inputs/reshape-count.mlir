// A reshape of a dynamic argument into a static shape: the element count
// is checked at launch.
func.func @flatten_back(%x: tensor<?xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = fuser.reshape %x : tensor<?xf32> -> tensor<3x4xf32>
  %0 = fuser.add %r, %y : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
