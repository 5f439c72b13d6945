// Verifier error: fuser.exp takes floats only.
func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = fuser.exp %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}
