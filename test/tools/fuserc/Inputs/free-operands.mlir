// A matmul of an iota and an index_add into a constant (free-operands.test).
func.func @f(%a: tensor<4x5xf32>, %idx: tensor<3xi64>, %src: tensor<3x2xf32>) -> (tensor<4x3xf32>, tensor<5x2xf32>) {
  %io = fuser.iota dim = 0 : tensor<5x3xf32>
  %0 = fuser.matmul %a, %io : (tensor<4x5xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
  %z = fuser.constant 0.5 : tensor<5x2xf32>
  %1 = fuser.index_add %z, %idx, %src dim = 0 : tensor<5x2xf32>, tensor<3xi64>, tensor<3x2xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<5x2xf32>
}
