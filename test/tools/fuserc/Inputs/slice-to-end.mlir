// Slices that keep a dynamic dim to its end (limit 9223372036854775807,
// ATen's default end): x[:, :4], x[1::2, 2::2], and x^T[6:8, 1::3].
func.func @ends(%x: tensor<?x8xf32>) -> (tensor<?x4xf32>, tensor<?x3xf32>, tensor<2x?xf32>) {
  %a = fuser.slice %x start = [0, 0] limit = [9223372036854775807, 4] step = [1, 1] : tensor<?x8xf32> -> tensor<?x4xf32>
  %b = fuser.slice %x start = [1, 2] limit = [9223372036854775807, 9223372036854775807] step = [2, 2] : tensor<?x8xf32> -> tensor<?x3xf32>
  %t = fuser.permute %x perm = [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
  %c = fuser.slice %t start = [6, 1] limit = [8, 9223372036854775807] step = [1, 3] : tensor<8x?xf32> -> tensor<2x?xf32>
  return %a, %b, %c : tensor<?x4xf32>, tensor<?x3xf32>, tensor<2x?xf32>
}

// x[:, :4] of a dynamic batch, differentiated: the gradient pads only dim 1.
func.func @head(%x: tensor<?x8xf32>) -> tensor<?x4xf32> {
  %a = fuser.slice %x start = [0, 0] limit = [9223372036854775807, 4] step = [1, 1] : tensor<?x8xf32> -> tensor<?x4xf32>
  %e = fuser.exp %a : tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}
