// Gradients along dims known only at launch (test/tools/fuserc/vjp-dynamic-exact.test).
func.func @scan(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fuser.cumsum %x dim = 0 : tensor<?xf32>
  return %0 : tensor<?xf32>
}

func.func @padded(%x: tensor<?xf32>, %v: tensor<f32>) -> tensor<?xf32> {
  %0 = fuser.pad %x, %v low = [2] high = [1] : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
