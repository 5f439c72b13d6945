// A fusion argument of a dtype bundles cannot carry.
func.func @f(%c: tensor<4xcomplex<f32>>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.neg %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
