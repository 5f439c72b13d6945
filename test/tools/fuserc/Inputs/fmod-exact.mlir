func.func @fmods(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = fuser.fmod %x, %y : tensor<8xf32>
  %1 = fuser.remainder %x, %y : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
