// layer_norm over normalized dims that hold no element
// (layer-norm-empty.test): statically, and at launch.
func.func @static_empty(%x: tensor<3x0xf32>) -> (tensor<3x0xf32>, tensor<3x1xf32>, tensor<3x1xf32>) {
  %y, %mean, %rstd = fuser.layer_norm %x dims = [1] eps = 1.000000e-05 : (tensor<3x0xf32>) -> (tensor<3x0xf32>, tensor<3x1xf32>, tensor<3x1xf32>)
  return %y, %mean, %rstd : tensor<3x0xf32>, tensor<3x1xf32>, tensor<3x1xf32>
}

func.func @dynamic(%x: tensor<3x?xbf16>) -> (tensor<3x?xbf16>, tensor<3x1xf32>, tensor<3x1xf32>) {
  %y, %mean, %rstd = fuser.layer_norm %x dims = [1] eps = 1.000000e-05 : (tensor<3x?xbf16>) -> (tensor<3x?xbf16>, tensor<3x1xf32>, tensor<3x1xf32>)
  return %y, %mean, %rstd : tensor<3x?xbf16>, tensor<3x1xf32>, tensor<3x1xf32>
}
