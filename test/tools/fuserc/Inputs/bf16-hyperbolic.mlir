// sinh, asinh and atanh of bf16 inputs, one fusion each (avx512-sign.test):
// alone in a kernel, the bit-level sign went wrong on AVX-512 hosts.
func.func @sinh(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %y = fuser.sinh %x : tensor<8xbf16>
  return %y : tensor<8xbf16>
}
func.func @asinh(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %y = fuser.asinh %x : tensor<8xbf16>
  return %y : tensor<8xbf16>
}
func.func @atanh(%x: tensor<8xbf16>) -> tensor<8xf32> {
  %w = fuser.cast %x : tensor<8xbf16> to tensor<8xf32>
  %h = fuser.tanh %w : tensor<8xf32>
  %y = fuser.atanh %h : tensor<8xf32>
  return %y : tensor<8xf32>
}
