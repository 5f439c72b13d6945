// A result that is a reshape of a computed value: the kernel writes through
// a view of the result buffer, whose alignment is the result's.
func.func @add_view(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> tensor<8192xf32> {
  %a = fuser.add %x, %y : tensor<64x128xf32>
  %v = fuser.reshape %a : tensor<64x128xf32> -> tensor<8192xf32>
  return %v : tensor<8192xf32>
}
