// A flat pointwise fusion whose size (1031) is not a multiple of the vector
// width: the last elements go through the scalar tail loop.
func.func @pointwise(%x: tensor<1031xf32>, %y: tensor<1031xf32>) -> tensor<1031xf32> {
  %e = fuser.exp %x : tensor<1031xf32>
  %0 = fuser.mul %e, %y : tensor<1031xf32>
  return %0 : tensor<1031xf32>
}
