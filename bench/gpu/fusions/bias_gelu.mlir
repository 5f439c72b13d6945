// GPU benchmark: y = gelu_tanh(x + bias), f32, any number of rows of 4096.
func.func @bias_gelu(%x: tensor<?x4096xf32>, %bias: tensor<4096xf32>) -> tensor<?x4096xf32> {
  %b = fuser.broadcast %bias dims = [1] : tensor<4096xf32> -> tensor<?x4096xf32>
  %0 = fuser.add %x, %b : tensor<?x4096xf32>
  %1 = fuser.gelu %0 approximate = tanh : tensor<?x4096xf32>
  return %1 : tensor<?x4096xf32>
}
