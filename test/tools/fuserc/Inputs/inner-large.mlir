// Kernels whose reference and inputs are small but which compute a value of
// more than 2^32 elements inside (index-bits.test): a rand or an iota
// sliced at offsets past 2^32, statically and through a dynamic stride-0
// view of 70000 x 70000.
func.func @rand_tail(%seed: tensor<i64>, %offset: tensor<i64>) -> tensor<8xi32> {
  %0 = fuser.rand %seed, %offset : tensor<4294967304xi32>
  %1 = fuser.slice %0 start = [4294967296] limit = [4294967304] step = [1] : tensor<4294967304xi32> -> tensor<8xi32>
  return %1 : tensor<8xi32>
}

func.func @iota_tail() -> tensor<8xi64> {
  %0 = fuser.iota dim = 0 : tensor<4294967304xi64>
  %1 = fuser.slice %0 start = [4294967296] limit = [4294967304] step = [1] : tensor<4294967304xi64> -> tensor<8xi64>
  return %1 : tensor<8xi64>
}

func.func @rand_like_tail(%x: tensor<?x?xf32> {fuser.strides = strided<[?, ?]>}, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<1x8xi32> {
  %0 = fuser.rand %seed, %offset like %x : tensor<?x?xf32> : tensor<?x?xi32>
  %1 = fuser.slice %0 start = [69999, 69992] limit = [70000, 70000] step = [1, 1] : tensor<?x?xi32> -> tensor<1x8xi32>
  return %1 : tensor<1x8xi32>
}
