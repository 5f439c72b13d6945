// GPU benchmark: y = x * sigmoid(x), f32, any number of rows of 4096.
func.func @silu(%x: tensor<?x4096xf32>) -> tensor<?x4096xf32> {
  %s = fuser.sigmoid %x : tensor<?x4096xf32>
  %0 = fuser.mul %x, %s : tensor<?x4096xf32>
  return %0 : tensor<?x4096xf32>
}
