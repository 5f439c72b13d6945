// silu written out: x * sigmoid(x).
func.func @silu(%x: tensor<8192x2048xf32>) -> tensor<8192x2048xf32> {
  %s = fuser.sigmoid %x : tensor<8192x2048xf32>
  %0 = fuser.mul %x, %s : tensor<8192x2048xf32>
  return %0 : tensor<8192x2048xf32>
}
