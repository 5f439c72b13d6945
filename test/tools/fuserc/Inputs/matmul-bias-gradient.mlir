// A linear layer's backward as fuser-vjp writes it, [B, S, H] tensors with
// S known at launch: dx = dy @ w; dW = dy^T @ x over every row; db = dy
// summed over the rows in f32, rounded once.
func.func @linear_backward(%x: tensor<2x?x32xbf16>, %w: tensor<16x32xbf16>, %dy: tensor<2x?x16xbf16>)
    -> (tensor<2x?x32xbf16>, tensor<16x32xbf16>, tensor<16xbf16>) {
  %dx = fuser.matmul %dy, %w : (tensor<2x?x16xbf16>, tensor<16x32xbf16>) -> tensor<2x?x32xbf16>
  %x2 = fuser.reshape %x : tensor<2x?x32xbf16> -> tensor<?x32xbf16>
  %dy2 = fuser.reshape %dy : tensor<2x?x16xbf16> -> tensor<?x16xbf16>
  %dyt = fuser.permute %dy2 perm = [1, 0] : tensor<?x16xbf16> -> tensor<16x?xbf16>
  %dw = fuser.matmul %dyt, %x2 : (tensor<16x?xbf16>, tensor<?x32xbf16>) -> tensor<16x32xbf16>
  %wide = fuser.cast %dy : tensor<2x?x16xbf16> to tensor<2x?x16xf32>
  %s = fuser.sum %wide dims = [0, 1] : tensor<2x?x16xf32> -> tensor<16xf32>
  %db = fuser.cast %s : tensor<16xf32> to tensor<16xbf16>
  return %dx, %dw, %db : tensor<2x?x32xbf16>, tensor<16x32xbf16>, tensor<16xbf16>
}
