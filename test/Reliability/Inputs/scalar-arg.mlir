// Fusion arguments are ranked tensors.
func.func @f(%s: f32, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.neg %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
