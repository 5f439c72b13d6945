// Schedule variants (scan.*): a running sum along rows of 1024 f32, the
// contiguous dim, so a warp scans each line; scan.block sets the lines a
// block takes, scan.waves the grid's cap. Every variant gives the same bits.
func.func @cumsum_rows(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %0 = fuser.cumsum %x dim = 1 : tensor<?x1024xf32>
  return %0 : tensor<?x1024xf32>
}
