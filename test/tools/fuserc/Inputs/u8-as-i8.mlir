// An i8 argument read from a uint8 .npy file (docs/npy.md): the same bytes,
// read as signed by cast. A bool argument does not take uint8.
func.func @widen(%m: tensor<8xi8>) -> tensor<8xf32> {
  %0 = fuser.cast %m : tensor<8xi8> to tensor<8xf32>
  return %0 : tensor<8xf32>
}

func.func @keep(%m: tensor<8xi1>) -> tensor<8xf32> {
  %0 = fuser.cast %m : tensor<8xi1> to tensor<8xf32>
  return %0 : tensor<8xf32>
}
