// A matmul operand of 2^31 elements beside a small pointwise segment
// (index-bits.test: a library call takes no index math).
func.func @mm(%a: tensor<65536x32768xf16>, %b: tensor<32768x16xf16>, %c: tensor<16xf32>) -> (tensor<65536x16xf16>, tensor<16xf32>) {
  %0 = fuser.matmul %a, %b : (tensor<65536x32768xf16>, tensor<32768x16xf16>) -> tensor<65536x16xf16>
  %1 = fuser.exp %c : tensor<16xf32>
  return %0, %1 : tensor<65536x16xf16>, tensor<16xf32>
}
