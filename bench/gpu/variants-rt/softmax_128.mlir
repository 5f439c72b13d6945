// Schedule variants (reduction.*): softmax over rows of 128 f32, short
// enough that a block holds several rows (32 threads a row), so
// reduction.block changes the rows a block takes.
func.func @softmax_128(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %0 = fuser.softmax %x dim = 1 : tensor<?x128xf32>
  return %0 : tensor<?x128xf32>
}
