// Each row divided by its maximum, then summed down the columns. The column
// sums read every row's maximum, so the row maxima must all be done first:
// two kernels (an inner reduction, then an outer reduction whose prologue
// divides in registers), no more, and the divided tensor never goes to
// memory.
func.func @two_kernels(%x: tensor<256x65536xf32>) -> tensor<65536xf32> {
  %rowmax = fuser.max %x dims = [1] : tensor<256x65536xf32> -> tensor<256xf32>
  %b = fuser.broadcast %rowmax dims = [0] : tensor<256xf32> -> tensor<256x65536xf32>
  %y = fuser.div %x, %b : tensor<256x65536xf32>
  %0 = fuser.sum %y dims = [0] : tensor<256x65536xf32> -> tensor<65536xf32>
  return %0 : tensor<65536xf32>
}
