// cumprod's gradient at zeros, infs and NaNs (cumprod-vjp.test): along a
// static row, a dynamic one, and a dim of one element.
func.func @rows(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = fuser.cumprod %x dim = 1 : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

func.func @dynamic(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %y = fuser.cumprod %x dim = 1 : tensor<2x?xf32>
  return %y : tensor<2x?xf32>
}

func.func @single(%x: tensor<2x1xf32>) -> tensor<2x1xf32> {
  %y = fuser.cumprod %x dim = 1 : tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}
