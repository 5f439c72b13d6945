// run-one-fusion.test: @wide compiles only with transpose.tile <= 32 (two
// f64 tiles of 64 x 65 are more than a block's 48 KB of shared memory);
// @small is pointwise.
func.func @wide(%x: tensor<256x128xf64>, %y: tensor<256x128xf64>) -> tensor<128x256xf64> {
  %tx = fuser.permute %x perm = [1, 0] : tensor<256x128xf64> -> tensor<128x256xf64>
  %ty = fuser.permute %y perm = [1, 0] : tensor<256x128xf64> -> tensor<128x256xf64>
  %0 = fuser.add %tx, %ty : tensor<128x256xf64>
  return %0 : tensor<128x256xf64>
}

func.func @small(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fuser.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
