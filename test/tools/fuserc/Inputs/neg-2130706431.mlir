// 2^31 - 2^24 - 1 elements: the largest static size whose default kernel
// takes 32-bit index math (index-bits.test).
func.func @big(%x: tensor<2130706431xi8>) -> tensor<2130706431xi8> {
  %0 = fuser.neg %x : tensor<2130706431xi8>
  return %0 : tensor<2130706431xi8>
}
