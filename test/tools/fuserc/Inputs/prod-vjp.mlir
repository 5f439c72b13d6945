// prod's gradient at zeros, infs and NaNs (prod-vjp.test): along one dim
// (static and dynamic), and over every dim (torch.prod(x)).
func.func @rows(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %y = fuser.prod %x dims = [1] : tensor<3x4xf32> -> tensor<3xf32>
  return %y : tensor<3xf32>
}

func.func @rows_dynamic(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %y = fuser.prod %x dims = [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @cols(%x: tensor<3x3xf32>) -> tensor<1x3xf32> {
  %y = fuser.prod %x dims = [0] keepdim = true : tensor<3x3xf32> -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

func.func @whole(%x: tensor<2x3xf32>) -> tensor<f32> {
  %y = fuser.prod %x dims = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %y : tensor<f32>
}

func.func @whole_dynamic(%x: tensor<?x?xf32>) -> tensor<f32> {
  %y = fuser.prod %x dims = [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %y : tensor<f32>
}
