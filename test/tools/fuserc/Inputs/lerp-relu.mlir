// lerp and relu at PyTorch's bits (lerp-relu.test).
func.func @lerp(%s: tensor<64xf32>, %e: tensor<64xf32>, %w: tensor<64xf32>) -> tensor<64xf32> {
  %y = fuser.lerp %s, %e, %w : tensor<64xf32>
  return %y : tensor<64xf32>
}

func.func @relu(%x: tensor<4xf32>, %h: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xbf16>) {
  %y = fuser.relu %x : tensor<4xf32>
  %z = fuser.relu %h : tensor<4xbf16>
  return %y, %z : tensor<4xf32>, tensor<4xbf16>
}
