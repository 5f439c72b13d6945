// An outer normalization under reduction.column_threads and
// reduction.column_rows, on small integers (floor of 4x the random inputs)
// so that its column sums are exact.

// An outer normalization: each column of 100 positions stays in its block
// (a share of at most 16 values a thread), its sum subtracted back.
func.func @colnorm(%x: tensor<100x?xf32>) -> (tensor<100x?xf32>, tensor<1x?xf32>) {
  %four = fuser.constant 4.0 : tensor<f32>
  %fourb = fuser.broadcast %four dims = [] : tensor<f32> -> tensor<100x?xf32>
  %x4 = fuser.mul %x, %fourb : tensor<100x?xf32>
  %xi = fuser.floor %x4 : tensor<100x?xf32>
  %s = fuser.sum %xi dims = [0] keepdim = true : tensor<100x?xf32> -> tensor<1x?xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<1x?xf32> -> tensor<100x?xf32>
  %0 = fuser.sub %xi, %sb : tensor<100x?xf32>
  return %0, %s : tensor<100x?xf32>, tensor<1x?xf32>
}
