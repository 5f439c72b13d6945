// Gradients whose formula's order of operations decides whether an
// intermediate overflows (test/tools/fuserc/vjp-extremes.test).
func.func @div(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %y = fuser.div %a, %b : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @pow(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %y = fuser.pow %a, %b : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @var_mean(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %v, %m = fuser.var_mean %x dims = [1] correction = 0 : tensor<2x3xf32> -> tensor<2xf32>, tensor<2xf32>
  return %v, %m : tensor<2xf32>, tensor<2xf32>
}
