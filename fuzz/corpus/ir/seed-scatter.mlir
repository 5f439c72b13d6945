func.func @scatter(%x: tensor<4x10xf32>, %i: tensor<4x3xi64>, %s: tensor<4x3xf32>) -> tensor<4x10xf32> {
  %0 = fuser.scatter_add %x, %i, %s dim = 1 : tensor<4x10xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  return %0 : tensor<4x10xf32>
}
