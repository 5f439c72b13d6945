func.func @exp(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = fuser.exp %x : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
