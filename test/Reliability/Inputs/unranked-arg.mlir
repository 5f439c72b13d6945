// Fusion arguments are ranked tensors.
func.func @f(%y: tensor<*xf32>) -> tensor<*xf32> {
  return %y : tensor<*xf32>
}
