func.func @rotate_half(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %x1 = fuser.slice %x start = [0, 0] limit = [16, 32] step = [1, 1] : tensor<16x64xf32> -> tensor<16x32xf32>
  %x2 = fuser.slice %x start = [0, 32] limit = [16, 64] step = [1, 1] : tensor<16x64xf32> -> tensor<16x32xf32>
  %n2 = fuser.neg %x2 : tensor<16x32xf32>
  %r = fuser.concat %n2, %x1 dim = 1 : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x64xf32>
  %0 = fuser.add %x, %r : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
func.func @pairs(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %p = fuser.reshape %x : tensor<2x16xf32> -> tensor<2x8x2xf32>
  %ev = fuser.slice %p start = [0, 0, 0] limit = [2, 8, 1] step = [1, 1, 1] : tensor<2x8x2xf32> -> tensor<2x8x1xf32>
  %od = fuser.slice %p start = [0, 0, 1] limit = [2, 8, 2] step = [1, 1, 1] : tensor<2x8x2xf32> -> tensor<2x8x1xf32>
  %no = fuser.neg %od : tensor<2x8x1xf32>
  %rp = fuser.concat %no, %ev dim = 2 : tensor<2x8x1xf32>, tensor<2x8x1xf32> -> tensor<2x8x2xf32>
  %r = fuser.reshape %rp : tensor<2x8x2xf32> -> tensor<2x16xf32>
  %0 = fuser.add %x, %r : tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
func.func @permuted(%a: tensor<256x64xf32>, %b: tensor<256x64xf32>) -> tensor<128x256xf32> {
  %c = fuser.concat %a, %b dim = 1 : tensor<256x64xf32>, tensor<256x64xf32> -> tensor<256x128xf32>
  %0 = fuser.permute %c perm = [1, 0] : tensor<256x128xf32> -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}
