// Two kernels handing a column sum over in a buffer the plan allocates
// (256-byte aligned: not the caller's, not checked).
func.func @f(%x: tensor<16x512xf32>) -> tensor<16xf32> {
  %s = fuser.sum %x dims = [0] : tensor<16x512xf32> -> tensor<512xf32>
  %b = fuser.broadcast %s dims = [1] : tensor<512xf32> -> tensor<16x512xf32>
  %y = fuser.div %x, %b : tensor<16x512xf32>
  %m = fuser.max %y dims = [1] : tensor<16x512xf32> -> tensor<16xf32>
  return %m : tensor<16xf32>
}
