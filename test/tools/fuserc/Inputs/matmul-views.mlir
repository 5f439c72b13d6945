// linear's weight passed as w.t() of a [3, 4] tensor: [4, 3] with strides
// [1, ?] (the ? passed at launch).
func.func @wt(%x: tensor<2x3xf32>, %w: tensor<4x3xf32> {fuser.strides = strided<[1, ?]>}) -> tensor<2x4xf32> {
  %0 = fuser.linear %x, %w : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// a row view [?, 5] with its row stride passed at launch, times b [5, 2]
// (matmul-views.test: one row whose stride is shorter than the row).
func.func @rows(%a: tensor<?x5xf32> {fuser.strides = strided<[?, 1]>}, %b: tensor<5x2xf32>) -> tensor<?x2xf32> {
  %0 = fuser.matmul %a, %b : (tensor<?x5xf32>, tensor<5x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
