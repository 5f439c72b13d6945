// Sums over a size-1 dim and another (keepdim=false), then an epilogue:
// the size-1 dim drops out of the reduction, and the reshape of its result
// stays in the reduction kernel (test/tools/fuserc/unit-dim-epilogue.test).
func.func @row(%x: tensor<1x4x8xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %s = fuser.sum %x dims = [0, 2] : tensor<1x4x8xf32> -> tensor<4xf32>
  %a = fuser.add %s, %y : tensor<4xf32>
  return %a : tensor<4xf32>
}
func.func @column(%x: tensor<8x1x4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %s = fuser.sum %x dims = [0, 1] : tensor<8x1x4xf32> -> tensor<4xf32>
  %a = fuser.add %s, %y : tensor<4xf32>
  return %a : tensor<4xf32>
}
