// Reductions over dims of static size 1 (unit-dim-reductions.test).
func.func @neg_zero(%x: tensor<4x1xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<4xf32>) {
  %n = fuser.neg %x : tensor<4x1xf32>
  %0 = fuser.sum %n dims = [1] : tensor<4x1xf32> -> tensor<4xf32>
  %1 = fuser.mean %n dims = [1] : tensor<4x1xf32> -> tensor<4xf32>
  %2 = fuser.sum %n dims = [1] keepdim = true : tensor<4x1xf32> -> tensor<4x1xf32>
  %3 = fuser.max %n dims = [1] : tensor<4x1xf32> -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<4xf32>
}
func.func @empty_dynamic(%x: tensor<?x1x0xf32>) -> tensor<?x0xf32> {
  %0 = fuser.sum %x dims = [1] : tensor<?x1x0xf32> -> tensor<?x0xf32>
  return %0 : tensor<?x0xf32>
}
// torch.matmul of views with no elements: b = torch.empty(8, 0) with strides
// (0, 1); a = torch.randn(8, 0).t(), strides (1, 1) as PyTorch makes them.
func.func @matmul_empty_view(%a: tensor<4x8xf32>, %b: tensor<8x0xf32> {fuser.strides = strided<[0, 1]>}) -> tensor<4x0xf32> {
  %0 = fuser.matmul %a, %b : (tensor<4x8xf32>, tensor<8x0xf32>) -> tensor<4x0xf32>
  return %0 : tensor<4x0xf32>
}
func.func @matmul_empty_transposed(%a: tensor<0x8xf32> {fuser.strides = strided<[1, 1]>}, %b: tensor<8x5xf32>) -> tensor<0x5xf32> {
  %0 = fuser.matmul %a, %b : (tensor<0x8xf32>, tensor<8x5xf32>) -> tensor<0x5xf32>
  return %0 : tensor<0x5xf32>
}
// torch.randn(4, 0).expand(2, 4, 0) into a linear with a [3, 0] weight of
// strides (1, 1): the bias broadcast to [2, 4, 3].
func.func @linear_empty_expanded(%x: tensor<2x4x0xf32> {fuser.strides = strided<[0, 1, 1]>}, %w: tensor<3x0xf32> {fuser.strides = strided<[1, 1]>}, %b: tensor<3xf32>) -> tensor<2x4x3xf32> {
  %0 = fuser.linear %x, %w bias %b : (tensor<2x4x0xf32>, tensor<3x0xf32>, tensor<3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}
