// An element type no fuser op takes (i16), in generic form.
func.func @f(%x: tensor<4xi16>) -> tensor<4xi16> {
  %0 = "fuser.neg"(%x) : (tensor<4xi16>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}
