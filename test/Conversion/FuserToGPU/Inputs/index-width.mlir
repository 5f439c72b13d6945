func.func @small(%x: tensor<2130706431xi8>) -> tensor<2130706431xi8> {
  %0 = fuser.neg %x : tensor<2130706431xi8>
  return %0 : tensor<2130706431xi8>
}
func.func @large(%x: tensor<2147483659xi8>) -> tensor<2147483659xi8> {
  %0 = fuser.neg %x : tensor<2147483659xi8>
  return %0 : tensor<2147483659xi8>
}
