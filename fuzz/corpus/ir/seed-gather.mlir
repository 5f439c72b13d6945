func.func @pick(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>) -> tensor<4x3xf32> {
  %g = fuser.gather %x, %i dim = 1 : tensor<4x10xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}
