// y = gelu(x + bias): the bias broadcasts along the rows and is read in place.
func.func @bias_gelu(%x: tensor<4096x1024xf32>, %bias: tensor<1024xf32>) -> tensor<4096x1024xf32> {
  %b = fuser.broadcast %bias dims = [1] : tensor<1024xf32> -> tensor<4096x1024xf32>
  %0 = fuser.add %x, %b : tensor<4096x1024xf32>
  %1 = fuser.gelu %0 approximate = tanh : tensor<4096x1024xf32>
  return %1 : tensor<4096x1024xf32>
}
