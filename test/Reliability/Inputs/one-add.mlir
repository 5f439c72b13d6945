func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = fuser.add %x, %x : tensor<64xf32>, tensor<64xf32>
  return %0 : tensor<64xf32>
}
