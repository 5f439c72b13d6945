// linear's weight passed as w.t() of a [3, 4] tensor: [4, 3] with strides
// [1, ?] (the ? passed at launch).
func.func @wt(%x: tensor<2x3xf32>, %w: tensor<4x3xf32> {fuser.strides = strided<[1, ?]>}) -> tensor<2x4xf32> {
  %0 = fuser.linear %x, %w : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
