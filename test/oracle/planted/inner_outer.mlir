// An inner-outer kernel and its combine: each row centred by its mean, then
// summed over the rows. 300 rows of 256 make 10 blocks of 8 rows of threads,
// each walking 3 or 4 row blocks and writing one row of column partials.
func.func @inner_outer(%x: tensor<300x256xf32>) -> tensor<256xf32> {
  %m = fuser.mean %x dims = [1] keepdim = true : tensor<300x256xf32> -> tensor<300x1xf32>
  %mb = fuser.broadcast %m dims = [0, 1] : tensor<300x1xf32> -> tensor<300x256xf32>
  %c = fuser.sub %x, %mb : tensor<300x256xf32>
  %s = fuser.sum %c dims = [0] : tensor<300x256xf32> -> tensor<256xf32>
  return %s : tensor<256xf32>
}
