// A 2x3 + broadcast 3 fusion the bad-input tests run.
func.func @f(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %b = fuser.broadcast %y dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  %0 = fuser.add %x, %b : tensor<2x3xf32>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
