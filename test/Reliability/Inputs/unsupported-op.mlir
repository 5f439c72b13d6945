// An op the pipeline does not take in a fusion body.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.negf %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
