// GPU benchmark: row softmax, f32, any number of rows of 4096.
func.func @softmax(%x: tensor<?x4096xf32>) -> tensor<?x4096xf32> {
  %0 = fuser.softmax %x dim = 1 : tensor<?x4096xf32>
  return %0 : tensor<?x4096xf32>
}
