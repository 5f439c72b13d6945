// Two f64 inputs read across their contiguous dim: a transpose that stages
// two tiles, 2 x 64 x 65 x 8 bytes at transpose.tile = 64, more than a
// block's 48 KB of static shared memory (schedule.test).
func.func @wide(%x: tensor<256x128xf64>, %y: tensor<256x128xf64>) -> tensor<128x256xf64> {
  %tx = fuser.permute %x perm = [1, 0] : tensor<256x128xf64> -> tensor<128x256xf64>
  %ty = fuser.permute %y perm = [1, 0] : tensor<256x128xf64> -> tensor<128x256xf64>
  %0 = fuser.add %tx, %ty : tensor<128x256xf64>
  return %0 : tensor<128x256xf64>
}
