// A permute of the two inner dims: the transpose scheduler stages tiles in
// shared memory (written by rows, read by columns, a barrier in between).
func.func @transpose(%x: tensor<4x65x33xf32>, %y: tensor<4x33x65xf32>) -> tensor<4x33x65xf32> {
  %t = fuser.permute %x perm = [0, 2, 1] : tensor<4x65x33xf32> -> tensor<4x33x65xf32>
  %0 = fuser.add %t, %y : tensor<4x33x65xf32>
  return %0 : tensor<4x33x65xf32>
}
