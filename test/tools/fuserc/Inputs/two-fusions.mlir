// Two fusions whose results have the same default name, result0.
func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @second(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.add %x, %y : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}
