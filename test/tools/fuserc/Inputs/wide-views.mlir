// Stride-0 views whose dims pass 2^32: they span a few elements, but the
// kernel's index arithmetic runs over their dims.
func.func @isel(%t: tensor<4294967306x4xf32> {fuser.strides = strided<[0, 1]>}, %ids: tensor<3xi64>) -> tensor<3x4xf32> {
  %0 = fuser.index_select %t, %ids dim = 0 : tensor<4294967306x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
func.func @isel_dyn(%t: tensor<?x4xf32> {fuser.strides = strided<[?, 1]>}, %ids: tensor<3xi64>) -> tensor<3x4xf32> {
  %0 = fuser.index_select %t, %ids dim = 0 : tensor<?x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
func.func @slice_dyn(%x: tensor<?xi64> {fuser.strides = strided<[?]>}) -> tensor<2xi64> {
  %0 = fuser.slice %x start = [4294967296] limit = [4294967298] step = [1] : tensor<?xi64> -> tensor<2xi64>
  %c = fuser.constant 1 : tensor<i64>
  %1 = fuser.add %0, %c : tensor<2xi64>, tensor<i64>
  return %1 : tensor<2xi64>
}
