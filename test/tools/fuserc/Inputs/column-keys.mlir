// Outer (column) kernels under reduction.column_threads and
// reduction.column_rows, on small integers (floor of 4x the random inputs)
// so that every column sum is exact: its bits do not depend on which row of
// threads adds which position. And scans, whose order follows the position
// alone, under scan.block and scan.waves on any values.

// A column sum: 96 f32 columns are 24 units of 4 lanes (32 threads along
// them and 8 rows of threads by default); the rows split across blocks
// when there are many.
func.func @colsum(%x: tensor<?x96xf32>) -> tensor<96xf32> {
  %four = fuser.constant 4.0 : tensor<f32>
  %fourb = fuser.broadcast %four dims = [] : tensor<f32> -> tensor<?x96xf32>
  %x4 = fuser.mul %x, %fourb : tensor<?x96xf32>
  %xi = fuser.floor %x4 : tensor<?x96xf32>
  %0 = fuser.sum %xi dims = [0] : tensor<?x96xf32> -> tensor<96xf32>
  return %0 : tensor<96xf32>
}

// An outer normalization of columns of 7 (exact): 8 rows of threads by
// default; with 256 threads along the kept dim given alone, 4 (a block of
// 1024), each thread holding 2 positions.
func.func @colnorm7(%x: tensor<7x?xf32>) -> tensor<7x?xf32> {
  %four = fuser.constant 4.0 : tensor<f32>
  %fourb = fuser.broadcast %four dims = [] : tensor<f32> -> tensor<7x?xf32>
  %x4 = fuser.mul %x, %fourb : tensor<7x?xf32>
  %xi = fuser.floor %x4 : tensor<7x?xf32>
  %s = fuser.sum %xi dims = [0] keepdim = true : tensor<7x?xf32> -> tensor<1x?xf32>
  %sb = fuser.broadcast %s dims = [0, 1] : tensor<1x?xf32> -> tensor<7x?xf32>
  %0 = fuser.sub %xi, %sb : tensor<7x?xf32>
  return %0 : tensor<7x?xf32>
}

// Scans along the contiguous dim (a warp per line) and across it (a thread
// per line), on the random inputs as they are.
func.func @scanrow(%x: tensor<?x300xf32>) -> tensor<?x300xf32> {
  %0 = fuser.cumsum %x dim = 1 : tensor<?x300xf32>
  return %0 : tensor<?x300xf32>
}
func.func @scancol(%x: tensor<50x?xbf16>) -> tensor<50x?xbf16> {
  %0 = fuser.cumsum %x dim = 0 : tensor<50x?xbf16>
  return %0 : tensor<50x?xbf16>
}
